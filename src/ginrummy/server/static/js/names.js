// Names of the players as this page shows them.

/** The name to show for a player object of the server ({name, kind, level}). */
export function playerName(player) {
  return player && player.name ? String(player.name) : "";
}
