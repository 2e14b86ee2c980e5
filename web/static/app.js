// cardedge dashboard: small improvements over pages that work without
// JavaScript. Loaded with defer from this origin only (the CSP allows
// nothing else).
(function () {
  "use strict";

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
      fig.querySelectorAll("rect.active").forEach(function (r) { r.classList.remove("active"); });
      fig.querySelectorAll("rect").forEach(function (r) {
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
})();
