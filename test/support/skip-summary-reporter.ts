/**
 * Closes the run with the list of skipped tests and why (their `ctx.skip(note)`), so a run that
 * skipped part of the suite says so in its last lines instead of only counting.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SkipSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const lines: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests('skipped')) {
        const result = test.result();
        const note = result.state === 'skipped' ? result.note : undefined;
        lines.push(`  ${module.moduleId.replace(`${process.cwd()}/`, '')} > ${test.fullName}${note ? `: ${note}` : ` (${test.options.mode})`}`);
      }
    }
    if (lines.length) process.stdout.write(`\nSkipped ${lines.length} test(s):\n${lines.join('\n')}\n`);
  }
}
