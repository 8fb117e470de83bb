/**
 * Operator actions on public access requests (operations-contract.md "Admin commands":
 * `access-requests list`, `access-requests approve <id>`).
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../../core/db/db.js';
import type { Prisma } from '../../core/db/prisma.js';
import type { Mailer } from '../../core/mailer.js';
import { CREDENTIALS_TTL_MS, hashCredentialsToken, sealCredentials } from '../services/access-requests.js';
import { AdminError, createAccountIn } from './accounts.js';

/** One stored access request as `access-requests list` prints it (times ISO 8601 UTC). */
export interface AccessRequestRow {
  id: number;
  email: string;
  name: string | null;
  company: string | null;
  use_case: string | null;
  ip: string;
  /** `pending`, `approved` or `spam`. */
  status: string;
  created_at: string;
  approved_at: string | null;
  /** The account's login once approved, else null. */
  login: string | null;
  /** When the one-time credentials link was read, else null. */
  credentials_read_at: string | null;
}

/**
 * Every stored access request, oldest first, spam included (with its status).
 * @param status only requests with this status, when given.
 */
export async function listAccessRequests(db: Db, status?: string): Promise<AccessRequestRow[]> {
  const rows = await db.prisma.accessRequest.findMany({
    where: status ? { status } : {},
    orderBy: { id: 'asc' },
    include: { account: { select: { login: true } } },
  });
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    name: r.name,
    company: r.company,
    use_case: r.useCase,
    ip: r.ip,
    status: r.status,
    created_at: r.createdAt.toISOString(),
    approved_at: r.approvedAt?.toISOString() ?? null,
    login: r.account?.login ?? null,
    credentials_read_at: r.credentialsReadAt?.toISOString() ?? null,
  }));
}

/** A login from an e-mail's local part: lowercased, letters, digits, `.`, `_`, `-`; at most 56 characters. */
export function loginBase(email: string): string {
  const at = email.lastIndexOf('@');
  const local = (at >= 0 ? email.slice(0, at) : email).toLowerCase();
  const cleaned = local.replace(/[^a-z0-9._-]/g, '').replace(/^[._-]+|[._-]+$/g, '').slice(0, 56);
  return cleaned || 'user';
}

/** The first free login of `base`, `base-2`, `base-3`, … inside `tx`. */
async function uniqueLogin(tx: Prisma.TransactionClient, base: string): Promise<string> {
  const taken = new Set((await tx.account.findMany({ where: { login: { startsWith: base } }, select: { login: true } })).map((a) => a.login));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * Approves a pending access request: in one transaction marks it approved, creates the account
 * (login from the e-mail's local part, made unique; balance 0, plan standard) with its first API key,
 * and stores the SHA-256 of a random one-time token with the `{ login, api_key }` payload sealed
 * under a key derived from that token (`sealCredentials`: never the key in plaintext). Then, when
 * a mailer is given, e-mails the link; a failed send is reported through `warn`, never fatal.
 * @param input.baseUrl public base URL (`publicBaseUrl(config)`), without a trailing slash.
 * @returns `{ login, credentials_url }`: `<baseUrl>/v1/public/credentials/<token>`, readable once
 *   within 7 days.
 * @throws AdminError for an unknown, spam or already approved request.
 */
export async function approveAccessRequest(
  db: Db,
  input: { id: number; baseUrl: string; mailer?: Mailer; warn?: (message: string) => void },
): Promise<{ login: string; credentials_url: string }> {
  const token = randomBytes(32).toString('base64url');
  const { login, email } = await db.prisma.$transaction(async (tx) => {
    const request = await tx.accessRequest.findUnique({ where: { id: input.id }, include: { account: { select: { login: true } } } });
    if (!request) throw new AdminError(`no access request with id ${input.id}`);
    if (request.status === 'spam') throw new AdminError(`access request ${input.id} is spam (its hidden website field was filled); not approved`);
    if (request.status === 'approved') throw new AdminError(`access request ${input.id} is already approved (login "${request.account?.login ?? '?'}")`);
    // Conditional claim: of two concurrent approvals only one moves it out of `pending`.
    const claimed = await tx.accessRequest.updateMany({ where: { id: input.id, status: 'pending' }, data: { status: 'approved', approvedAt: new Date() } });
    if (claimed.count !== 1) throw new AdminError(`access request ${input.id} is not pending (approved by a concurrent command?)`);
    const account = await createAccountIn(tx, { login: await uniqueLogin(tx, loginBase(request.email)), email: request.email });
    await tx.accessRequest.update({
      where: { id: input.id },
      data: {
        accountId: account.id,
        credentialsTokenHash: hashCredentialsToken(token),
        credentialsPayload: sealCredentials(token, { login: account.login, api_key: account.api_key }),
      },
    });
    return { login: account.login, email: request.email };
  });
  const url = `${input.baseUrl}/v1/public/credentials/${token}`;
  if (input.mailer) {
    try {
      await input.mailer.send(email, 'Your retail-data-api credentials', credentialsMail(login, url));
    } catch (error) {
      input.warn?.(`access request ${input.id} approved, but the e-mail to ${email} failed: ${(error as Error).message}`);
    }
  }
  return { login, credentials_url: url };
}

/** The text of the credentials e-mail. */
function credentialsMail(login: string, url: string): string {
  const days = CREDENTIALS_TTL_MS / 86_400_000;
  return [
    'Your access request was approved.',
    '',
    `Login: ${login}`,
    '',
    'Open this link to see your login and API key. It works once, within',
    `${days} days; the key is not shown again, so store it safely:`,
    '',
    url,
    '',
  ].join('\n');
}
