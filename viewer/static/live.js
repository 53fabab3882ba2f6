// The live feed: new observations arrive as server-sent events and are added at the top.
// Text is set with textContent only, never parsed as markup.
(function () {
  "use strict";
  var feed = document.getElementById("feed");
  var empty = document.getElementById("feed-empty");
  if (!feed || !window.EventSource) return;
  var src = new EventSource("/live/events?after=" + encodeURIComponent(feed.dataset.last || "0"));
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text) e.textContent = text;
    return e;
  }
  // The database file was replaced: its ids are new, so start again from the page.
  src.addEventListener("reset", function () { src.close(); window.location.reload(); });
  src.addEventListener("observation", function (ev) {
    var o = JSON.parse(ev.data);
    var li = el("li", "item wide new");
    li.appendChild(el("time", "", o.when));
    li.appendChild(el("span", "type t-" + o.type.replace(/[^a-z]/g, ""), o.type));
    var a = el("a", "", o.title);
    a.href = o.url;
    li.appendChild(a);
    li.appendChild(el("span", "sub", o.project));
    feed.insertBefore(li, feed.firstChild);
    if (empty) empty.hidden = true;
  });
})();
