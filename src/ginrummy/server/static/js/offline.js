// The offline page the service worker shows when a page cannot be reached: say so, offer to retry.
import { startPage } from "./ui.js";

await startPage("offline");
const retry = () => location.reload();
document.getElementById("offline-retry").addEventListener("click", retry);
window.addEventListener("online", retry);
