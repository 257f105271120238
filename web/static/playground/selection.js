// The message the inspector shows: {kind: "ready", a: queue, b: id} or
// {kind: "unacked", a: channel, b: delivery tag}, or null. Selecting one
// redraws the page through the hooks registered with onSelect.

export let selected = null;
const hooks = [];
export const onSelect = (fn) => hooks.push(fn);

export function select(s) {
  selected = s;
  for (const fn of hooks) fn();
}

// clearSelection forgets the selection without redrawing (a reset redraws).
export function clearSelection() {
  selected = null;
}

export function isSelected(kind, a, b) {
  return !!selected && selected.kind === kind && selected.a === a && selected.b === b;
}

// selKey is the part of the selection a card with messages of kind in a
// shows (which message is pressed), for the card's key.
export function selKey(kind, a) {
  return selected && selected.kind === kind && selected.a === a ? String(selected.b) : "";
}
