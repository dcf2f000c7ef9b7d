/**
 * The users selected in the Users table for a bulk action (docs/interface.md#people-groups-and-audit): kept
 * across pages, by uin; the page's state for the header check box; and "select all N matching", which asks the
 * server for every user the filters match.
 */
import { computed, ref, type Ref } from 'vue';
import type { AdminUserView } from '../api';
import { allMatching, type SelectedUser, type UserFilters } from './bulk-users';

export function useUserSelection(rows: Ref<readonly AdminUserView[]>, total: () => number) {
  const selected = ref(new Map<number, SelectedUser>());
  const selectingAll = ref(false);

  function select(list: readonly SelectedUser[], on: boolean): void {
    const next = new Map(selected.value);
    for (const { uin, name, source } of list) {
      if (on) next.set(uin, { uin, name, source });
      else next.delete(uin);
    }
    selected.value = next;
  }

  const pageSelection = computed<'all' | 'some' | 'none'>(() =>
    rows.value.length > 0 && rows.value.every((u) => selected.value.has(u.uin))
      ? 'all'
      : rows.value.some((u) => selected.value.has(u.uin))
        ? 'some'
        : 'none',
  );
  /** "All 20 users on this page are selected. Select all 143 matching users." */
  const offerAll = computed(() => pageSelection.value === 'all' && total() > selected.value.size);
  /** Some selected users are not on the page shown: a bulk action is confirmed with its count first. */
  const beyondPage = computed(() =>
    [...selected.value.keys()].some((uin) => !rows.value.some((u) => u.uin === uin)),
  );

  /** Rejects as the list call does; the selection is unchanged then. */
  async function selectAllMatching(filters: UserFilters): Promise<void> {
    selectingAll.value = true;
    try {
      select(await allMatching(filters), true);
    } finally {
      selectingAll.value = false;
    }
  }

  const clear = (): void => {
    selected.value = new Map();
  };

  return { selected, selectingAll, select, pageSelection, offerAll, beyondPage, selectAllMatching, clear };
}
