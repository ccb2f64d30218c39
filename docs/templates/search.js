// search.js - full-text search of the site, in the browser, over
// window.SEARCH_INDEX (search-index.js, written by make docs). No server and
// no network: search.html?q=words lists the sections that hold every word
// (case-insensitive), best first, each with the words in context.
(function () {
  "use strict";
  var form = document.getElementById("search-form");
  var input = document.getElementById("search-q");
  var status = document.getElementById("search-status");
  var list = document.getElementById("search-results");
  var index = window.SEARCH_INDEX || [];

  function words(q) {
    return q.toLowerCase().split(/\s+/).filter(function (w) { return w.length > 0; });
  }

  function count(hay, w) {
    var n = 0, i = hay.indexOf(w);
    while (i >= 0) { n++; i = hay.indexOf(w, i + w.length); }
    return n;
  }

  // The text around the first hit of the first word, with every word marked.
  function snippet(text, ws) {
    var low = text.toLowerCase(), at = low.indexOf(ws[0]);
    var from = Math.max(0, at - 80), to = Math.min(text.length, at + 160);
    var frag = document.createDocumentFragment();
    var piece = (from > 0 ? "... " : "") + text.slice(from, to) + (to < text.length ? " ..." : "");
    var plow = piece.toLowerCase(), pos = 0;
    while (pos < piece.length) {
      var next = -1, len = 0;
      ws.forEach(function (w) {
        var k = plow.indexOf(w, pos);
        if (k >= 0 && (next < 0 || k < next)) { next = k; len = w.length; }
      });
      if (next < 0) { frag.appendChild(document.createTextNode(piece.slice(pos))); break; }
      frag.appendChild(document.createTextNode(piece.slice(pos, next)));
      var mark = document.createElement("mark");
      mark.textContent = piece.slice(next, next + len);
      frag.appendChild(mark);
      pos = next + len;
    }
    return frag;
  }

  function search(q) {
    var ws = words(q);
    list.textContent = "";
    if (ws.length === 0) { status.textContent = "Type one or more words."; return; }
    var hits = [];
    index.forEach(function (e) {
      var head = (e.title + " " + e.section).toLowerCase();
      var body = e.text.toLowerCase();
      var score = 0;
      for (var i = 0; i < ws.length; i++) {
        var h = count(head, ws[i]), b = count(body, ws[i]);
        if (h + b === 0) return;
        score += 10 * h + b;
      }
      hits.push({ e: e, score: score });
    });
    hits.sort(function (a, b) { return b.score - a.score; });
    status.textContent = hits.length === 0 ? "Nothing found for \u201c" + q + "\u201d."
      : hits.length + (hits.length === 1 ? " section" : " sections") + " found for \u201c" + q + "\u201d.";
    hits.slice(0, 50).forEach(function (h) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = h.e.page + (h.e.anchor ? "#" + h.e.anchor : "");
      a.textContent = h.e.title + (h.e.section ? ": " + h.e.section : "");
      li.appendChild(a);
      var p = document.createElement("p");
      p.appendChild(snippet(h.e.text || h.e.section, ws));
      li.appendChild(p);
      list.appendChild(li);
    });
  }

  var q = new URLSearchParams(window.location.search).get("q") || "";
  input.value = q;
  if (index.length === 0) {
    status.textContent = "The search index (search-index.js) is missing: run make docs.";
  } else if (q) {
    search(q);
  }
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var v = input.value.trim();
    history.replaceState(null, "", "?q=" + encodeURIComponent(v));
    search(v);
  });
})();
