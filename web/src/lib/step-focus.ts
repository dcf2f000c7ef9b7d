/**
 * The sign-in pages' steps (sign in, consent, an error…): each step names the tab, and a step that replaces
 * another moves focus to its heading (WCAG 2.4.3); the first step after loading leaves focus where the browser
 * put it, and the wait steps neither name nor move anything.
 */
import { type Ref, watch } from 'vue';
import { focusHeading } from './focus';

export function useStepFocus<Step extends string>(
  step: Ref<Step>,
  waiting: readonly Step[],
  nameTab: (step: Step) => void,
): void {
  let steps = 0;
  watch(step, (now) => {
    nameTab(now);
    if (waiting.includes(now)) return;
    steps += 1;
    if (steps > 1) void focusHeading();
  });
}
