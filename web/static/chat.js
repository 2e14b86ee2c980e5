// cardedge web chat: a conversation with the market assistant over
// POST /api/v3/agent/chat (server-sent events), authenticated by a
// short-lived chat-user token that the page fetches from the dashboard with
// its session (and renews before it expires). Loaded with defer from this
// origin only (the CSP allows nothing else). The page says what to do
// without it.
(function () {
  "use strict";

  var root = document.querySelector("[data-chat]");
  if (!root || !window.fetch || !window.TextDecoder || !window.AbortController || !window.ReadableStream) return;

  var MAX_MESSAGES = 50;    // agent.MaxMessages
  var MAX_CHARS = 4000;     // agent.MaxChars
  var IDLE_MS = 45000;      // no event for this long: the answer timed out
  var RENEW_MS = 60000;     // renew the token when it has less than this left
  var SHOWN_RESULT = 6000;  // characters of a tool result shown

  var log = root.querySelector("[data-log]");
  var start = root.querySelector("[data-start]");
  var status = root.querySelector("[data-status]");
  var form = root.querySelector("[data-form]");
  var input = form.querySelector("textarea");
  var sendBtn = form.querySelector("[data-send]");
  var stopBtn = form.querySelector("[data-stop]");
  var newBtn = form.querySelector("[data-new]");
  var cardBase = root.getAttribute("data-card-base");

  var messages = [];   // the conversation: {role: "user" | "assistant", content}
  var token = null;    // {value, expires (ms)}
  var running = null;  // the answer being streamed: {ctrl, stopped, idle}

  root.hidden = false;

  // --- Elements -----------------------------------------------------------

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  function say(text) { status.textContent = text; }

  function scrollDown() {
    var last = log.lastElementChild;
    if (last && last.scrollIntoView) last.scrollIntoView({ block: "end" });
  }

  // A card id as the API writes them: language, colon, set, hyphen and
  // number ("en:base1-4", "zh-cn:sv1-12", "en:OP01-001"); set ids
  // ("en:base1") have no hyphen.
  var CARD_ID = "(?:en|ja|zh-cn|zh-tw):[A-Za-z0-9][A-Za-z0-9._]*-[A-Za-z0-9._-]*[A-Za-z0-9]";
  var cardIDRE = new RegExp("\\b(" + CARD_ID + ")\\b", "g");
  var isCardID = new RegExp("^" + CARD_ID + "$");

  function cardLink(id, text) {
    var a = el("a", "card-link", text || id);
    a.href = cardBase + encodeURIComponent(id).replace(/%3A/gi, ":");
    return a;
  }

  // linkify fills node with text, its card ids made links to card pages.
  function linkify(node, text) {
    node.textContent = "";
    var at = 0;
    text.replace(cardIDRE, function (m, id, off) {
      if (off > at) node.appendChild(document.createTextNode(text.slice(at, off)));
      node.appendChild(cardLink(id));
      at = off + m.length;
      return m;
    });
    if (at < text.length) node.appendChild(document.createTextNode(text.slice(at)));
  }

  // cardsIn collects {card_id, name} pairs found anywhere in a tool result.
  function cardsIn(v, out, seen) {
    if (!v || typeof v !== "object") return out;
    if (Array.isArray(v)) {
      v.forEach(function (x) { cardsIn(x, out, seen); });
      return out;
    }
    var id = typeof v.card_id === "string" ? v.card_id : (typeof v.id === "string" && isCardID.test(v.id) ? v.id : null);
    if (id && !seen[id]) {
      seen[id] = true;
      out.push({ id: id, name: typeof v.name === "string" ? v.name : "" });
    }
    Object.keys(v).forEach(function (k) { cardsIn(v[k], out, seen); });
    return out;
  }

  function json(v) {
    var s;
    try { s = JSON.stringify(v, null, 2); } catch (e) { s = String(v); }
    if (s.length > SHOWN_RESULT) s = s.slice(0, SHOWN_RESULT) + "\n… (" + (s.length - SHOWN_RESULT) + " more characters)";
    return s;
  }

  function addUser(text) {
    var m = el("div", "msg msg-user");
    m.appendChild(el("p", "msg-who", "You"));
    m.appendChild(el("p", "msg-text", text));
    log.appendChild(m);
  }

  // addAnswer adds the assistant's turn: its tool cards, then its text.
  function addAnswer() {
    var m = el("article", "msg msg-bot");
    m.setAttribute("aria-label", "Answer");
    m.setAttribute("aria-busy", "true");
    m.appendChild(el("p", "msg-who", "Market assistant"));
    var tools = el("div", "tools");
    var text = el("p", "msg-text streaming");
    var meta = el("p", "msg-meta");
    m.appendChild(tools);
    m.appendChild(text);
    m.appendChild(meta);
    log.appendChild(m);
    return { root: m, tools: tools, text: text, meta: meta, raw: "", calls: {}, node: null };
  }

  function toolCard(a, ev) {
    var box = el("section", "tool running");
    box.setAttribute("aria-label", "Tool call: " + ev.name);
    var d = el("details");
    var s = el("summary");
    s.appendChild(el("span", "tool-name", ev.name));
    var state = el("span", "tool-state", "running…");
    s.appendChild(state);
    d.appendChild(s);
    d.appendChild(el("h3", "tool-h", "Arguments"));
    d.appendChild(el("pre", "tool-json", json(ev.arguments)));
    var res = el("div", "tool-result");
    d.appendChild(res);
    box.appendChild(d);
    var links = el("ul", "tool-cards");
    box.appendChild(links);
    a.tools.appendChild(box);
    a.calls[ev.call_id] = { box: box, state: state, res: res, links: links };
  }

  function toolResult(a, ev) {
    var c = a.calls[ev.call_id];
    if (!c) return;
    c.box.classList.remove("running");
    c.box.classList.add(ev.ok ? "ok" : "failed");
    c.state.textContent = ev.ok ? "done" : "failed";
    c.res.appendChild(el("h3", "tool-h", ev.ok ? "Result" : "Error"));
    c.res.appendChild(el("pre", "tool-json", ev.ok ? json(ev.result) : String(ev.error)));
    if (!ev.ok) return;
    cardsIn(ev.result, [], {}).slice(0, 12).forEach(function (card) {
      var li = el("li");
      li.appendChild(cardLink(card.id, card.name ? card.name + " (" + card.id + ")" : card.id));
      c.links.appendChild(li);
    });
  }

  function answerError(a, msg) {
    var p = el("p", "error", msg);
    p.setAttribute("role", "alert");
    a.root.insertBefore(p, a.meta);
  }

  // answerNote says how an answer ended when that was no failure (Stop).
  function answerNote(a, msg) {
    a.root.insertBefore(el("p", "msg-note", msg), a.meta);
  }

  // finish ends an answer: the text with its card links, the figures, and
  // the turn added to the conversation.
  function finish(a, note) {
    a.text.classList.remove("streaming");
    if (a.raw) linkify(a.text, a.raw);
    else a.text.remove();
    if (note) a.meta.textContent = note;
    a.root.setAttribute("aria-busy", "false");
    if (a.raw) messages.push({ role: "assistant", content: a.raw });
  }

  // --- Token --------------------------------------------------------------

  function getToken(fresh) {
    if (!fresh && token && token.expires - Date.now() > RENEW_MS) return Promise.resolve(token.value);
    var body = new URLSearchParams();
    body.set("csrf", root.getAttribute("data-csrf"));
    return fetch(root.getAttribute("data-token-url"), {
      method: "POST", credentials: "same-origin", body: body, headers: { Accept: "application/json" },
    }).then(function (res) {
      var ct = res.headers.get("Content-Type") || "";
      if (ct.indexOf("application/json") < 0) throw new Error("Your session has ended: sign in again, then reload this page.");
      return res.json().then(function (j) {
        if (!res.ok || !j.token) throw new Error(j.error || "Cannot start the chat (" + res.status + ").");
        token = { value: j.token, expires: Date.parse(j.expires_at) };
        return token.value;
      });
    });
  }

  // --- Sending ------------------------------------------------------------

  // outgoing is the conversation as the chat route takes it: at most 50
  // messages of at most 4,000 characters, the user's last.
  function outgoing() {
    var out = messages.slice(-MAX_MESSAGES).map(function (m) {
      return { role: m.role, content: m.content.slice(0, MAX_CHARS) };
    });
    while (out.length && out[0].role !== "user") out.shift();
    return out;
  }

  function errorText(res, body) {
    var j = null;
    try { j = JSON.parse(body); } catch (e) { /* not JSON */ }
    var msg = (j && j.error && j.error.message) || (j && j.detail && j.detail[0] && j.detail[0].msg) || body.slice(0, 300) || res.statusText;
    msg = msg.replace(/ \(see Retry-After\)/, "."); // the header is said below, in words
    if (res.status === 429) {
      var wait = parseInt(res.headers.get("Retry-After") || "0", 10);
      return "Too many requests: " + msg + (wait > 0 ? " Try again in " + duration(wait) + "." : "");
    }
    return "The chat refused the question (" + res.status + "): " + msg;
  }

  // took says a duration in milliseconds: "27 ms", "1.4 s".
  function took(ms) {
    ms = Math.round(ms);
    return ms < 1000 ? ms + " ms" : (ms / 1000).toFixed(1) + " s";
  }

  function duration(s) {
    if (s < 90) return s + " s";
    if (s < 5400) return Math.round(s / 60) + " min";
    return Math.floor(s / 3600) + " h " + Math.round((s % 3600) / 60) + " min";
  }

  function busy(on) {
    sendBtn.disabled = on;
    stopBtn.disabled = !on;
    input.setAttribute("aria-busy", on ? "true" : "false");
  }

  function ask(text) {
    text = text.trim();
    if (!text || running) return;
    if (text.length > MAX_CHARS) {
      say("Your question is longer than " + MAX_CHARS + " characters: shorten it.");
      return;
    }
    start.hidden = true;
    messages.push({ role: "user", content: text });
    addUser(text);
    input.value = "";
    var a = addAnswer();
    scrollDown();
    var run = { ctrl: new AbortController(), stopped: false, timedOut: false, idle: 0 };
    running = run;
    busy(true);
    say("Asking…");
    var began = performance.now();
    var firstToken = 0;

    function idle() {
      clearTimeout(run.idle);
      run.idle = setTimeout(function () { run.timedOut = true; run.ctrl.abort(); }, IDLE_MS);
    }

    function post(retried) {
      return getToken(retried).then(function (tok) {
        idle();
        return fetch(root.getAttribute("data-chat-url"), {
          method: "POST", signal: run.ctrl.signal, credentials: "omit",
          headers: { Authorization: "Bearer " + tok, "Content-Type": "application/json", Accept: "text/event-stream" },
          body: JSON.stringify({ messages: outgoing() }),
        });
      }).then(function (res) {
        if (res.status === 401 && !retried) return post(true); // the token expired meanwhile
        return res;
      });
    }

    post(false).then(function (res) {
      if (!res.ok) {
        return res.text().then(function (body) {
          answerError(a, errorText(res, body));
          finish(a, "");
          say("The question was not answered.");
        });
      }
      say("Answering…");
      return read(res, a, run, idle, function () {
        if (!firstToken) firstToken = performance.now();
      }).then(function (end) {
        var ms = Math.round(performance.now() - began);
        var note = "";
        if (end) {
          note = end.tool_calls + (end.tool_calls === 1 ? " tool call" : " tool calls") + " · " + end.tokens + (end.tokens === 1 ? " token · " : " tokens · ") +
            took(ms) + (firstToken ? " (first words after " + took(firstToken - began) + ")" : "");
        }
        finish(a, note);
        a.root.setAttribute("data-first-token-ms", firstToken ? String(Math.round(firstToken - began)) : "");
        a.root.setAttribute("data-total-ms", String(ms));
        say(end && end.finish_reason === "stop" ? "Answered." : "The answer ended early.");
      });
    }).catch(function (err) {
      if (run.stopped) {
        answerNote(a, "Stopped: you ended the answer.");
        finish(a, "");
        say("Stopped.");
        return;
      }
      if (run.timedOut) {
        answerError(a, "The answer timed out: nothing arrived for " + IDLE_MS / 1000 + " seconds. Check your connection and ask again.");
        finish(a, "");
        say("Timed out.");
        return;
      }
      answerError(a, err && err.message ? err.message : "The chat could not be reached. Check your connection and ask again.");
      finish(a, "");
      say("The question was not answered.");
    }).then(function () {
      clearTimeout(run.idle);
      running = null;
      busy(false);
      scrollDown();
      input.focus();
    });
  }

  // read parses the event stream until end; it resolves with the end
  // event's data (null when the stream stopped without one).
  function read(res, a, run, idle, onToken) {
    var reader = res.body.getReader();
    var dec = new TextDecoder();
    var buf = "";
    var end = null;
    return new Promise(function (resolve, reject) {
      function pump() {
        reader.read().then(function (r) {
          if (r.done) { resolve(end); return; }
          idle();
          buf += dec.decode(r.value, { stream: true });
          var i;
          while ((i = buf.indexOf("\n\n")) >= 0) {
            var chunk = buf.slice(0, i);
            buf = buf.slice(i + 2);
            var ev = parse(chunk);
            if (ev) end = handle(a, ev, onToken) || end;
          }
          if (end) { reader.cancel().catch(function () {}); resolve(end); return; }
          pump();
        }).catch(reject);
      }
      pump();
    });
  }

  function parse(chunk) {
    var name = "", data = "";
    chunk.split("\n").forEach(function (line) {
      if (line.indexOf("event: ") === 0) name = line.slice(7);
      else if (line.indexOf("data: ") === 0) data += line.slice(6);
    });
    if (!name) return null;
    try { return { name: name, data: data ? JSON.parse(data) : {} }; } catch (e) { return null; }
  }

  // handle applies one event; it returns the end event's data.
  function handle(a, ev, onToken) {
    var d = ev.data;
    switch (ev.name) {
      case "token":
        onToken();
        if (!a.node) {
          a.node = document.createTextNode("");
          a.text.appendChild(a.node);
        }
        a.raw += d.text;
        a.node.data = a.raw;
        scrollDown();
        break;
      case "tool_call":
        toolCard(a, d);
        say("Calling " + d.name + "…");
        scrollDown();
        break;
      case "tool_result":
        toolResult(a, d);
        say("Answering…");
        break;
      case "error":
        answerError(a, d.code === "timeout" ? "The answer took too long and was cut off: " + d.message + "." : "The assistant failed: " + d.message);
        break;
      case "end":
        return d;
    }
    return null;
  }

  // --- Controls -----------------------------------------------------------

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    ask(input.value);
  });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      ask(input.value);
    }
  });
  stopBtn.addEventListener("click", function () {
    if (!running) return;
    running.stopped = true;
    running.ctrl.abort();
  });
  newBtn.addEventListener("click", function () {
    if (running) { running.stopped = true; running.ctrl.abort(); }
    messages = [];
    log.textContent = "";
    start.hidden = false;
    say("New conversation.");
    input.focus();
  });
  root.querySelectorAll("[data-ask]").forEach(function (b) {
    b.addEventListener("click", function () { ask(b.textContent); });
  });
  // Fetch the first token now, so the first question does not wait for it.
  getToken(false).catch(function (err) { say(err.message); });
})();
