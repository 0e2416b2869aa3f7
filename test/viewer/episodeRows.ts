/** The page's episode list, as a test reads it in a real browser. */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

/** Waits (up to 30 s) until episode `id`'s row in the page's episode list matches `mark`; returns the row's text. */
export async function waitRow(page: Page, id: string, mark: RegExp): Promise<string> {
  const row = page.locator(`#episode-list li[data-episode="${id}"]`);
  let text = '';
  for (let waited = 0; waited < 30_000; waited += 100) {
    text = (await row.textContent({ timeout: 30_000 })) ?? '';
    if (mark.test(text)) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.match(text, mark, `the episode list's row of ${id}`);
  return text;
}
