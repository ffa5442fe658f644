// Account: claim this guest's name with a password, sign in on another device, rename, sign out.
import { api, describeError } from "./api.js";
import { t } from "./i18n.js";
import { copyText, h, startPage, toast } from "./ui.js";

await startPage("account");

/** Show a freshly issued token: the only time it is ever shown. */
function showToken(token) {
  document.getElementById("token-value").textContent = token;
  document.getElementById("token-box").hidden = false;
}

function botRow(bot) {
  const act = (label, id, work) => {
    const button = h("button", { type: "button", id, dataset: { bot: bot.id } }, t(label));
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await work();
        await listBots();
      } catch (error) {
        toast(describeError(error), "error");
      } finally {
        button.disabled = false;
      }
    });
    return button;
  };
  const path = `/api/bots/${encodeURIComponent(bot.id)}/token`;
  return h(
    "li",
    { class: "bot-row", dataset: { id: bot.id } },
    h("a", { href: bot.profile, class: "player-link" }, bot.name),
    h("span", { class: "badge bot" }, t("bots.badge")),
    h("span", { class: `badge ${bot.online ? "online" : "offline"}` }, t(bot.online ? "bots.online" : "bots.offline")),
    h("span", { class: "hint" }, bot.token ? t("bots.token_active") : t("bots.token_none")),
    act(bot.token ? "bots.token_new" : "bots.token_issue", `token-new-${bot.id}`, async () => {
      showToken((await api("POST", path)).token);
    }),
    bot.token
      ? act("bots.token_revoke", `token-revoke-${bot.id}`, async () => {
          await api("DELETE", path);
          document.getElementById("token-box").hidden = true;
          toast(t("bots.token_revoked", { name: bot.name }), "ok");
        })
      : null,
  );
}

async function listBots() {
  const { bots } = await api("GET", "/api/bots");
  const list = document.getElementById("bot-list");
  list.replaceChildren(...bots.map(botRow));
  if (!bots.length) list.append(h("li", { class: "hint" }, t("bots.none")));
}

function show(me) {
  document.getElementById("signed-in").hidden = !me.account;
  document.getElementById("bots").hidden = !me.account;
  if (me.account) listBots().catch((error) => toast(describeError(error), "error"));
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

submit("bot-form", async () => {
  const made = await api("POST", "/api/bots", { name: document.getElementById("bot-name").value.trim() });
  document.getElementById("bot-name").value = "";
  showToken(made.token);
  toast(t("bots.created", { name: made.bot.name }), "ok");
  await listBots();
});

document.getElementById("token-copy").addEventListener("click", async () => {
  if (await copyText(document.getElementById("token-value").textContent)) toast(t("bots.token_copied"), "ok");
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
