// The session's login for real AMQP clients, as an editor's welcome gives
// it (hub.AMQPLogin): the URLs a program connects with, built on the
// host the page came from, so that they work wherever the server is
// reached. Read-only participants get no login and see nothing here.
import { t } from "../i18n.js";
import { $ } from "./dom.js";

// amqpURLs returns the TCP and WebSocket URLs of login, or null for
// those the server does not take.
export function amqpURLs(login, loc = location) {
  const user = encodeURIComponent(login.user);
  const pass = encodeURIComponent(login.password);
  const vhost = login.vhost === "/" ? "" : encodeURIComponent(login.vhost);
  const tcp = login.port ? `amqp://${user}:${pass}@${loc.hostname}:${login.port}/${vhost}` : null;
  let ws = null;
  if (login.webSocket) {
    const u = new URL(login.webSocket, loc.href);
    u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
    ws = u.toString();
  }
  return { tcp, ws };
}

// amqpSnippet is a whole program that connects to ws (a WebSocket URL
// from amqpURLs) with login, using @cloudamqp/amqp-client, and publishes
// one message through a queue of its own: what the panel offers to copy,
// run as it stands by web/e2e/liveamqp.mjs.
export function amqpSnippet(ws, login) {
  const q = JSON.stringify;
  return [
    `import { AMQPWebSocketClient } from "@cloudamqp/amqp-client";`,
    ``,
    `const amqp = new AMQPWebSocketClient({ url: ${q(ws)}, vhost: ${q(login.vhost)}, username: ${q(login.user)}, password: ${q(login.password)} });`,
    `const conn = await amqp.connect();`,
    `const ch = await conn.channel();`,
    `await ch.queueDeclare("from-my-program");`,
    `await ch.basicPublish("", "from-my-program", "hello from my program");`,
    `console.log("published");`,
    `await conn.close();`,
    ``,
  ].join("\n");
}

// showAMQPLogin fills the panel with login, or hides it (null). Where the
// server takes no AMQP over TCP (the edge), the panel names only clients
// that speak AMQP over WebSocket.
export function showAMQPLogin(login) {
  const box = $("live-amqp");
  box.hidden = !login;
  if (!login) return;
  const { tcp, ws } = amqpURLs(login);
  $("live-amqp-url").value = tcp ?? "";
  $("live-amqp-url").closest("label").hidden = !tcp;
  $("live-amqp-ws").value = ws ?? "";
  $("live-amqp-ws").closest("label").hidden = !ws;
  $("live-amqp-note").hidden = !tcp;
  $("live-amqp-note-ws").hidden = !!tcp;
  $("live-amqp-login").textContent = t("js.live.amqp.login", { user: login.user, password: login.password, vhost: login.vhost });
  $("live-amqp-program").hidden = !ws;
  $("live-amqp-snippet").textContent = ws ? amqpSnippet(ws, login) : "";
}
