// Moves the one-time token from the link's fragment into the sign-in form, and out of the address bar and history.
(function () {
  var token = decodeURIComponent(window.location.hash.slice(1));
  document.getElementById('token').value = token;
  if (token) window.history.replaceState(null, '', window.location.pathname);
})();
