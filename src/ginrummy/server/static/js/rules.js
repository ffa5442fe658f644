// The rules of a table in words: every rule that differs from the classic preset, one short note each.
import { formatNumber, t } from "./i18n.js";

/** Notes for `changes` (the state's match.rule_changes: field -> value), in the page's language. */
export function ruleNotes(changes) {
  const notes = [];
  for (const [field, value] of Object.entries(changes || {})) {
    if (field === "target") continue; // the header shows the target already
    if (typeof value === "boolean") notes.push(t(`rule.${field}.${value ? "on" : "off"}`));
    else if (value === null) notes.push(t(`rule.${field}.off`));
    else if (typeof value === "number") notes.push(t(`rule.${field}`, { n: formatNumber(value) }));
    else notes.push(t(`rule.${field}.${value}`));
  }
  return notes;
}
