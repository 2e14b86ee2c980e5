// cardedge dashboard: small improvements over pages that work without
// JavaScript. Loaded with defer from this origin only (the CSP allows
// nothing else).
(function () {
  "use strict";
  document.documentElement.classList.add("js"); // the script ran (tests read it)

  // Copy buttons: <button data-copy="ID" hidden> copies the text of #ID.
  document.querySelectorAll("button[data-copy]").forEach(function (b) {
    if (!navigator.clipboard) return;
    b.hidden = false;
    b.addEventListener("click", function () {
      var el = document.getElementById(b.getAttribute("data-copy"));
      if (!el) return;
      navigator.clipboard.writeText(el.textContent.trim()).then(function () {
        b.textContent = "Copied";
        setTimeout(function () { b.textContent = "Copy"; }, 2000);
      }, function () {
        b.textContent = "Select and copy";
      });
    });
  });

  // Charts: a tap or a hover on a bar says its day and numbers.
  document.querySelectorAll("[data-chart]").forEach(function (fig) {
    var out = fig.querySelector("[data-readout]");
    if (!out) return;
    var show = function (ev) {
      var label = ev.target.getAttribute && ev.target.getAttribute("data-label");
      if (!label) return;
      fig.querySelectorAll(".active").forEach(function (r) { r.classList.remove("active"); });
      fig.querySelectorAll("rect, circle").forEach(function (r) {
        if (r.getAttribute("data-label") === label) r.classList.add("active");
      });
      out.textContent = label;
    };
    fig.addEventListener("click", show);
    fig.addEventListener("mouseover", show);
  });

  // Forms marked data-autosubmit apply a changed selection at once.
  document.querySelectorAll("form[data-autosubmit]").forEach(function (f) {
    f.querySelectorAll("select").forEach(function (s) {
      s.addEventListener("change", function () { f.submit(); });
    });
  });

  // Typeahead: a search box (form[data-typeahead]) asks data-lookup for
  // suggestions as the user types (debounced), shown as a listbox; arrow keys
  // move through them, Enter opens the one selected (or submits the search),
  // Escape closes them. Without scripts the form searches.
  document.querySelectorAll("form[data-typeahead]").forEach(function (form) {
    var input = form.querySelector("[role=combobox]");
    var list = form.querySelector("[role=listbox]");
    if (!input || !list || !window.fetch) return;
    var url = form.getAttribute("data-lookup");
    var game = form.querySelector("select[name=game]");
    var items = [], active = -1, timer = null, seq = 0;
    var close = function () {
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
      active = -1;
    };
    var select = function (i) {
      var opts = list.querySelectorAll("[role=option]");
      opts.forEach(function (o, j) { o.setAttribute("aria-selected", j === i ? "true" : "false"); });
      active = i;
      if (i >= 0 && opts[i]) {
        input.setAttribute("aria-activedescendant", opts[i].id);
        opts[i].scrollIntoView({ block: "nearest" });
      } else {
        input.removeAttribute("aria-activedescendant");
      }
    };
    var show = function (data) {
      if (data.query !== input.value.trim()) return; // typed on since: a newer answer comes
      list.setAttribute("data-query", data.query);
      items = data.items || [];
      list.textContent = "";
      items.forEach(function (it, i) {
        var li = document.createElement("li");
        li.id = "sg-" + i;
        li.setAttribute("role", "option");
        li.setAttribute("aria-selected", "false");
        var label = document.createElement("span");
        label.className = "sg-label";
        label.textContent = it.label + (it.kind === "set" ? " (set)" : "");
        if (it.language) label.lang = it.language; // the name's script picks its fonts (app.css)
        var detail = document.createElement("span");
        detail.className = "sg-detail";
        detail.textContent = [it.detail, (it.language || "").toUpperCase(), it.id].filter(Boolean).join(" · ");
        li.appendChild(label);
        li.appendChild(detail);
        li.addEventListener("mousedown", function (ev) { ev.preventDefault(); window.location.assign(it.href); });
        list.appendChild(li);
      });
      if (items.length === 0) { close(); return; }
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
      select(-1);
    };
    var ask = function () {
      var q = input.value.trim();
      if (q === "") { close(); return; }
      if (q === list.getAttribute("data-query") && items.length > 0) { // the answer is here already
        if (list.hidden) {
          list.hidden = false;
          input.setAttribute("aria-expanded", "true");
          select(-1);
        }
        return;
      }
      var n = ++seq;
      var u = url + "?q=" + encodeURIComponent(q) + (game ? "&game=" + encodeURIComponent(game.value) : "");
      fetch(u, { credentials: "same-origin", headers: { "Accept": "application/json" } })
        .then(function (r) { return r.ok ? r.json() : { items: [] }; })
        .then(function (data) { if (n === seq && document.activeElement === input) show(data); })
        .catch(function () { if (n === seq) close(); });
    };
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(ask, 150);
    });
    input.addEventListener("keydown", function (ev) {
      var open = !list.hidden && items.length > 0;
      if (ev.key === "ArrowDown") {
        if (!open) { ask(); return; }
        ev.preventDefault();
        select((active + 1) % items.length);
      } else if (ev.key === "ArrowUp" && open) {
        ev.preventDefault();
        select(active <= 0 ? items.length - 1 : active - 1);
      } else if (ev.key === "Enter" && open && active >= 0) {
        ev.preventDefault();
        window.location.assign(items[active].href);
      } else if (ev.key === "Escape" && open) {
        ev.preventDefault();
        close();
      }
    });
    // Enter's keypress may still reach the form (a synthetic key event):
    // a suggestion picked wins over the search.
    form.addEventListener("submit", function (ev) {
      if (!list.hidden && active >= 0 && items[active]) {
        ev.preventDefault();
        window.location.assign(items[active].href);
      }
    });
    input.addEventListener("blur", function () { setTimeout(close, 100); });
  });
})();
