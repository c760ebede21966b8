// The account page (/account): log in from any device, protect one's nickname with a
// password (no registration is needed to play), change the password, log out; the
// data: download one's games as records, delete the account.

import { identity } from "./api.js";
import { changePassword, deleteAccount, login, logout, me, register } from "./account-api.js";
import { has, t, translate } from "./i18n.js";
import { addPasskey, loginWithPasskey, passkeyError, passkeysAvailable, showPasskeys } from "./passkeys.js";

export async function showAccount(root, navigate) {
  root.innerHTML = `
    <section class="account card">
      <h1 data-i18n="account.title"></h1>
      <p class="hint" data-i18n="account.help"></p>
      <p id="account-message" role="status" aria-live="polite"></p>
      <div id="logged-out" hidden>
        <form id="login-form" class="account-form">
          <h2 data-i18n="account.login"></h2>
          <label class="field"><span data-i18n="lobby.nickname"></span>
            <input id="login-nickname" name="nickname" maxlength="24" autocomplete="username" required></label>
          <label class="field"><span data-i18n="account.password"></span>
            <input id="login-password" name="password" type="password" autocomplete="current-password" required></label>
          <button type="submit" class="primary" data-i18n="account.loginButton"></button>
          <p class="passkey-only"><button type="button" id="passkey-login" data-i18n="passkey.login"></button></p>
        </form>
        <form id="register-form" class="account-form">
          <h2 data-i18n="account.register"></h2>
          <p class="hint" data-i18n="account.registerHelp"></p>
          <label class="field"><span data-i18n="lobby.nickname"></span>
            <input id="register-nickname" name="nickname" maxlength="24" autocomplete="username" required></label>
          <label class="field"><span data-i18n="account.newPassword"></span>
            <input id="register-password" name="password" type="password" minlength="8" autocomplete="new-password" required></label>
          <button type="submit" class="primary" data-i18n="account.registerButton"></button>
        </form>
      </div>
      <div id="logged-in" hidden>
        <p id="account-who"></p>
        <p><a id="my-profile" data-link data-i18n="account.profile"></a></p>
        <button type="button" id="logout" data-i18n="account.logout"></button>
        <section class="account-passkeys passkey-only">
          <h2 data-i18n="passkey.title"></h2>
          <p class="hint" data-i18n="passkey.help"></p>
          <ul id="passkey-list" class="passkey-list"></ul>
          <form id="passkey-form" class="account-form">
            <label class="field"><span data-i18n="passkey.name"></span>
              <input id="passkey-name" maxlength="64" autocomplete="off"></label>
            <label class="field"><span data-i18n="account.password"></span>
              <input id="passkey-password" type="password" autocomplete="current-password" required></label>
            <button type="submit" data-i18n="passkey.add"></button>
          </form>
        </section>
        <form id="password-form" class="account-form">
          <h2 data-i18n="account.change"></h2>
          <label class="field"><span data-i18n="account.password"></span>
            <input id="old-password" type="password" autocomplete="current-password" required></label>
          <label class="field"><span data-i18n="account.newPassword"></span>
            <input id="new-password" type="password" minlength="8" autocomplete="new-password" required></label>
          <button type="submit" data-i18n="account.changeButton"></button>
        </form>
        <section class="account-data">
          <h2 data-i18n="account.data"></h2>
          <p><a id="download-games" href="/api/account/games" download data-i18n="account.download"></a></p>
          <form id="delete-form" class="account-form">
            <p class="hint" data-i18n="account.deleteHelp"></p>
            <label class="field"><span data-i18n="account.password"></span>
              <input id="delete-password" type="password" autocomplete="current-password" required></label>
            <button type="submit" class="danger" data-i18n="account.deleteButton"></button>
          </form>
        </section>
      </div>
    </section>`;
  translate(root);
  const $ = (s) => root.querySelector(s);
  let who = null;
  for (const part of root.querySelectorAll(".passkey-only")) part.hidden = !passkeysAvailable();

  function say(text, good = false) {
    $("#account-message").textContent = text;
    $("#account-message").className = good ? "good" : "error";
  }

  function render() {
    $("#logged-out").hidden = Boolean(who?.account);
    $("#logged-in").hidden = !who?.account;
    if (who?.account) {
      $("#account-who").textContent = t("account.loggedInAs", { name: who.player.nickname });
      $("#my-profile").href = `/@/${encodeURIComponent(who.player.nickname)}`;
      if (passkeysAvailable()) showPasskeys($("#passkey-list"), (error) => say(passkeyError(error)));
    } else {
      const mine = identity();
      if (mine && !$("#register-nickname").value) $("#register-nickname").value = mine.nickname;
    }
  }

  async function refresh() {
    who = await me();
    render();
  }

  function attempt(action) {
    return async (event) => {
      event.preventDefault();
      try {
        await action();
      } catch (error) {
        say(has(`error.${error.code}`) ? t(`error.${error.code}`) : error.message);
      }
    };
  }

  $("#login-form").addEventListener("submit", attempt(async () => {
    await login($("#login-nickname").value, $("#login-password").value);
    $("#login-password").value = "";
    say(t("account.welcome"), true);
    await refresh();
  }));
  $("#passkey-login").addEventListener("click", attempt(async () => {
    await loginWithPasskey();
    say(t("account.welcome"), true);
    await refresh();
  }));
  $("#passkey-form").addEventListener("submit", attempt(async () => {
    const password = $("#passkey-password").value;
    $("#passkey-password").value = "";
    await addPasskey($("#passkey-name").value.trim(), password);
    $("#passkey-name").value = "";
    say(t("passkey.addedNow"), true);
    await showPasskeys($("#passkey-list"), (error) => say(passkeyError(error)));
  }));
  $("#register-form").addEventListener("submit", attempt(async () => {
    await register($("#register-nickname").value, $("#register-password").value);
    $("#register-password").value = "";
    say(t("account.made"), true);
    await refresh();
  }));
  $("#logout").addEventListener("click", attempt(async () => {
    await logout();
    say(t("account.loggedOut"), true);
    await refresh();
  }));
  $("#password-form").addEventListener("submit", attempt(async () => {
    await changePassword($("#old-password").value, $("#new-password").value);
    $("#old-password").value = $("#new-password").value = "";
    say(t("account.changed"), true);
  }));
  $("#delete-form").addEventListener("submit", attempt(async () => {
    if (!window.confirm(t("account.deleteConfirm"))) return;
    await deleteAccount($("#delete-password").value);
    say(t("account.deleted"), true);
    await refresh();
  }));
  await refresh();
  const relabel = () => {
    translate(root);
    render();
  };
  document.addEventListener("languagechange", relabel);
  return () => document.removeEventListener("languagechange", relabel);
}
