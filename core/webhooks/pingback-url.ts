/**
 * A pingback's URL (api-spec.md "Events"): the configured URL with `$id` (task id) and `$tag` (the
 * task's tag, URL-encoded; empty when null) replaced anywhere in it. The result is normalised by
 * the URL policy before it is requested and signed.
 */

/** Replaces `$id` and `$tag` in one pass, so a tag containing `$id` is not expanded again. */
export function expandPingbackUrl(template: string, task: { id: string; tag: string | null }): string {
  return template.replace(/\$(id|tag)/g, (_, name: string) => (name === 'id' ? task.id : encodeURIComponent(task.tag ?? '')));
}
