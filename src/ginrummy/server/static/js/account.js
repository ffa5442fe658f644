// Account: claim this guest's name with a password, sign in on another device, rename, sign out.
import { api, describeError } from "./api.js";
import { t } from "./i18n.js";
import { startPage, toast } from "./ui.js";

await startPage("account");

function show(me) {
  document.getElementById("signed-in").hidden = !me.account;
  document.getElementById("signed-out").hidden = me.account;
  const link = document.getElementById("account-name");
  link.textContent = me.name;
  link.href = `/players/${encodeURIComponent(me.id)}`;
  if (me.account) document.getElementById("rename").value = me.name;
  else if (!document.getElementById("claim-name").value && !me.name.startsWith("Guest ")) {
    document.getElementById("claim-name").value = me.name.replace(/\s+/g, "_");
  }
}

function submit(formId, work) {
  const form = document.getElementById(formId);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await work(form);
    } catch (error) {
      toast(describeError(error), "error");
    } finally {
      button.disabled = false;
      for (const input of form.querySelectorAll("input[type=password]")) input.value = "";
    }
  });
}

submit("claim-form", async () => {
  const me = await api("POST", "/api/account", {
    name: document.getElementById("claim-name").value.trim(),
    password: document.getElementById("claim-password").value,
  });
  toast(t("account.claimed", { name: me.name }), "ok");
  show(me);
});

submit("login-form", async () => {
  const me = await api("POST", "/api/login", {
    name: document.getElementById("login-name").value.trim(),
    password: document.getElementById("login-password").value,
  });
  // Everything on the page belonged to the previous guest: start again as the account.
  location.assign(`/players/${encodeURIComponent(me.id)}`);
});

submit("rename-form", async () => {
  const me = await api("POST", "/api/me", { name: document.getElementById("rename").value.trim() });
  toast(t("home.name_saved", { name: me.name }), "ok");
  show(me);
});

for (const [id, path] of [
  ["sign-out", "/api/logout"],
  ["sign-out-everywhere", "/api/logout/everywhere"],
]) {
  document.getElementById(id).addEventListener("click", async () => {
    try {
      await api("POST", path);
      location.assign("/");
    } catch (error) {
      toast(describeError(error), "error");
    }
  });
}

try {
  show(await api("GET", "/api/me"));
} catch (error) {
  toast(describeError(error), "error");
}
