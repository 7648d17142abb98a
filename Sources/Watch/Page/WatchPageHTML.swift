/// `watch --http`: The page itself: its skeleton, which the script fills; no inline script or style (the server's Content-Security-Policy allows none).
/// Built into the binary: nothing is fetched from anywhere at build or run time.
enum WatchPageHTML {
    static let text = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>uwb2mqtt watch</title>
<link rel="stylesheet" href="/watch.css">
<script src="/watch.js" defer></script>
</head>
<body>
<header>
<h1>uwb2mqtt watch</h1>
<p id="connection" class="state warn">connecting…</p>
<p class="dim"><span id="clock">--:--:--</span> UTC · <span id="title"></span></p>
</header>
<section id="site" hidden>
<h2><span id="site-name"></span> <span id="site-status" class="state"></span></h2>
<svg id="map" role="img" aria-label="the site from above, north up" xmlns="http://www.w3.org/2000/svg"></svg>
<ul id="tags" class="plain"></ul>
<p id="site-notes" class="dim"></p>
</section>
<main id="gateways"><p id="waiting" class="dim">waiting for a gateway…</p></main>
<section>
<h2>latest events</h2>
<ol id="events" class="plain"><li class="dim">none yet</li></ol>
</section>
<noscript><p>This page draws itself with JavaScript from the server's live stream.</p></noscript>
</body>
</html>
"""#
}
