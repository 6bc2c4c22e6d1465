// aggsim inspector: appends the request rows the server renders and
// streams as server-sent events ("request") to the request list, newest
// first. When htmx replaces the list (a new filter), the stream is
// reopened with the list's own URL.
(function () {
  var source = null, list = null;
  function connect() {
    var l = document.getElementById("request-list");
    if (!l || l === list) return;
    if (source) source.close();
    list = l;
    source = new EventSource(l.dataset.events);
    source.addEventListener("request", function (e) {
      list.insertAdjacentHTML("afterbegin", e.data);
      while (list.children.length > 1000) list.lastElementChild.remove();
    });
  }
  document.addEventListener("htmx:afterSettle", connect);
})();
