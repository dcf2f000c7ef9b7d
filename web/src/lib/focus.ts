/**
 * Where keyboard focus goes when the page changes under it (WCAG 2.4.3): to the new view's heading, so
 * a screen reader says where the user is and the next Tab starts at the top of the content.
 */
import { nextTick } from 'vue';

/** Focuses `target`, making it focusable by script only when it is not already. */
export function focusElement(target: HTMLElement | null | undefined): boolean {
  if (!target) return false;
  if (!target.matches('a[href], button, input, select, textarea, [tabindex]')) {
    target.setAttribute('tabindex', '-1');
  }
  target.focus({ preventScroll: false });
  return document.activeElement === target;
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whether the user (or the page itself, e.g. a code field) has put focus on something in the new view since
 * `before` had it: a heading that renders late must not pull focus from a field someone is already typing in.
 */
function focusMovedInto(main: HTMLElement | null, before: Element | null): boolean {
  const now = document.activeElement;
  return now !== null && now !== before && now !== main && main?.contains(now) === true;
}

/**
 * The first `h1` in the main region, once it is rendered (a page may first load its data), else the region
 * itself; nothing when focus has already moved into the new view.
 */
export async function focusHeading(): Promise<void> {
  const before = document.activeElement;
  await nextTick();
  const main = document.getElementById('main');
  for (let tries = 0; tries < 20; tries += 1) {
    if (focusMovedInto(main, before)) return;
    if (focusElement(main?.querySelector<HTMLElement>('h1'))) return;
    await wait(50);
  }
  if (!focusMovedInto(main, before)) focusElement(main);
}

/**
 * After a form was refused: focus its first field marked `aria-invalid="true"`, whose error the field's
 * `aria-describedby` then reads out.
 */
export async function focusFirstInvalid(form: HTMLElement | null | undefined): Promise<void> {
  await nextTick();
  focusElement(form?.querySelector<HTMLElement>('[aria-invalid="true"]'));
}
