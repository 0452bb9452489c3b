// The console's only own script (the CSP allows no inline script). Pages work without it:
// times are rendered server-side in UTC and localized here; live pages mark when their stream is open.
(function () {
  'use strict';
  var format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  function localize(root) {
    var times = (root || document).querySelectorAll('time[datetime]');
    for (var i = 0; i < times.length; i++) {
      var t = times[i];
      var d = new Date(t.getAttribute('datetime'));
      if (isNaN(d.getTime()) || t.dataset.localized) continue;
      t.title = t.getAttribute('datetime');
      t.textContent = format.format(d);
      t.dataset.localized = '1';
    }
  }
  document.addEventListener('DOMContentLoaded', function () {
    localize(document);
  });
  document.addEventListener('htmx:afterSettle', function (e) {
    localize(e.target);
  });
  document.addEventListener('htmx:sseOpen', function () {
    document.body.dataset.live = 'open';
  });
  document.addEventListener('htmx:sseError', function () {
    document.body.dataset.live = 'closed';
  });
})();
