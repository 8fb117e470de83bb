/**
 * Reads pasted ASINs or a CSV file into task_post elements. One task per line; a line is an ASIN,
 * optionally followed by a marketplace and a tag (separated by commas, semicolons or tabs), or
 * several ASINs separated by spaces. A first line whose first cell is `asin` is a header. The API
 * validates every element (api-spec.md "Product endpoints"); nothing is refused here.
 */
export interface TaskLine {
  asin: string;
  marketplace: string;
  tag?: string;
}

export function parseTaskLines(text: string, defaultMarketplace: string, defaultTag?: string): TaskLine[] {
  const tasks: TaskLine[] = [];
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  if (lines[0] && /^"?asin"?$/i.test(lines[0].split(/[,;\t]/)[0]!.trim())) lines.shift();
  for (const line of lines) {
    const cells = line.split(/[,;\t]/).map((c) => c.trim().replace(/^"|"$/g, ''));
    if (cells.length > 1) {
      tasks.push({ asin: cells[0]!, marketplace: cells[1] || defaultMarketplace, ...(cells[2] || defaultTag ? { tag: cells[2] || defaultTag } : {}) });
    } else {
      for (const asin of line.split(/\s+/)) tasks.push({ asin, marketplace: defaultMarketplace, ...(defaultTag ? { tag: defaultTag } : {}) });
    }
  }
  return tasks;
}

/** Elements in chunks of at most `size` (postTasks takes 1 to 100). */
export function chunks<T>(items: T[], size = 100): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
