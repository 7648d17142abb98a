/// `watch --http`: What draws the page from the server's frames and keeps the clock and ages moving between them. It builds every element with `createElement` and sets every text from a payload with `textContent` or `setAttribute`: no markup is ever made from data.
/// Built into the binary: nothing is fetched from anywhere at build or run time.
enum WatchPageScript {
    static let text = #"""
// The page of `uwb2mqtt watch --http`: draws the parts the server streams (Server-Sent Events on
// /events) and keeps them current. Every name, rule, error and event comes from MQTT payloads
// and is set as text (textContent, setAttribute), never parsed as markup.
"use strict";

const svgNS = "http://www.w3.org/2000/svg";
const parts = new Map();        // key → part, as the server last sent it
const gatewayCards = new Map(); // gateway id → its card's elements
const peerRows = new Map();     // part key → its row's elements
let skew = 0;                   // server clock − this device's clock, seconds
let scale = 5;                  // metres at the bars' right end: the farthest peer, 5 m at least

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function svg(tag, attributes) {
  const node = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes || {})) node.setAttribute(name, String(value));
  return node;
}

function serverNow() { return Date.now() / 1000 + skew; }

// `0.4s`, `12s`, `3m`, `2h`, as the terminal view writes ages.
function age(seconds) {
  if (seconds === null || seconds === undefined) return "";
  const s = Math.max(0, serverNow() - seconds);
  if (s < 10) return s.toFixed(1) + "s ago";
  if (s < 60) return Math.floor(s) + "s ago";
  if (s < 3600) return Math.floor(s / 60) + "m ago";
  return Math.floor(s / 3600) + "h ago";
}

// A state in words, and a class for its colour (the words say it without the colour).
function tone(text, good, bad) {
  if (text === null || text === undefined) return ["?", "dim"];
  if (good.includes(text)) return [text, "ok"];
  if (bad.includes(text)) return [text, "bad"];
  return [text, "warn"];
}

function setState(node, [text, className]) {
  node.textContent = text;
  node.className = "state " + className;
}

// MARK: the frames

function apply(frame) {
  if (frame.reset) {
    for (const key of [...parts.keys()]) remove(key);
  }
  for (const key of frame.del || []) remove(key);
  const set = frame.set || {};
  for (const [key, part] of Object.entries(set)) {
    parts.set(key, part);
    draw(key, part);
  }
  rescale();
}

function remove(key) {
  const part = parts.get(key);
  parts.delete(key);
  if (!part) return;
  if (part.kind === "peer") {
    const row = peerRows.get(key.slice(2));
    if (row) row.root.remove();
    peerRows.delete(key.slice(2));
  } else if (part.kind === "gateway") {
    const card = gatewayCards.get(part.id);
    if (card) card.root.remove();
    gatewayCards.delete(part.id);
  } else if (part.kind === "site") {
    document.getElementById("site").hidden = true;
  }
  document.getElementById("waiting").hidden = gatewayCards.size > 0;
}

function draw(key, part) {
  switch (part.kind) {
    case "page": return drawPage(part);
    case "gateway": return drawGateway(part);
    case "peer": return drawPeer(key, part);
    case "distance": return drawDistance(key, part);
    case "events": return drawEvents(part);
    case "site": return drawSite(part);
  }
}

function drawPage(page) {
  skew = page.now - Date.now() / 1000;
  document.getElementById("title").textContent = page.title;
  document.getElementById("clock").textContent = page.clock;
}

// MARK: gateways and peers

function card(id) {
  let card = gatewayCards.get(id);
  if (card) return card;
  const root = el("article", "gateway");
  root.dataset.gateway = id;
  const title = el("h2");
  const name = el("span", "name", id);
  const status = el("span", "state");
  title.append(name, " ", status);
  const facts = el("p", "facts");
  const errors = el("div");
  const scaleLine = el("p", "scale dim");
  const peers = el("ol", "peers plain");
  const rankings = el("div");
  root.append(title, facts, errors, scaleLine, peers, rankings);
  scaleLine.append(el("span", null, "0"), el("span", null, scale.toFixed(2) + " m"));
  card = { root, status, facts, errors, scaleLine, peers, rankings };
  gatewayCards.set(id, card);
  // Gateways in the order of their ids, as the terminal view has them.
  const main = document.getElementById("gateways");
  const after = [...gatewayCards.keys()].filter(other => other > id).sort()[0];
  main.insertBefore(root, after === undefined ? null : gatewayCards.get(after).root);
  document.getElementById("waiting").hidden = true;
  return card;
}

function drawGateway(gateway) {
  const c = card(gateway.id);
  setState(c.status, tone(gateway.status, ["online"], ["offline"]));
  c.facts.replaceChildren();
  const device = el("span", "state");
  setState(device, tone(gateway.device, ["ranging"], ["error", "absent"]));
  c.facts.append("device ", device);
  if (gateway.firmware) c.facts.append(" fw " + gateway.firmware);
  if (gateway.rate) c.facts.append(" · " + gateway.rate);
  if (gateway.dropped !== null) c.facts.append(" · dropped " + gateway.dropped);
  const rules = el("span", "state");
  setState(rules, gateway.rules_ok === null ? ["?", "dim"] : gateway.rules_ok ? ["ok", "ok"] : ["FAILED", "bad"]);
  c.facts.append(" · rules ", rules);
  if (gateway.rules_sha) c.facts.append(" " + gateway.rules_sha);
  c.errors.replaceChildren();
  if (gateway.device_error) c.errors.append(el("p", "bad", "device error: " + gateway.device_error));
  if (gateway.rules_ok === false) {
    c.errors.append(el("p", "bad", "rules error: " + (gateway.rules_error || "no reason given")
      + (gateway.rules_sha ? "; still running " + gateway.rules_sha : "")));
  }
  if (gateway.problem) {
    c.errors.append(el("p", "bad", (gateway.problem_count > 1 ? "unreadable (" + gateway.problem_count + ", the newest): " : "unreadable: ") + gateway.problem));
  }
  c.rankings.replaceChildren(...gateway.rankings.map(ranking =>
    el("p", "ranking", "ranking " + ranking.rule + ": "
      + (ranking.peers.length ? ranking.peers.map((peer, i) => (i + 1) + " " + peer).join("  ") : "nobody"))));
}

// A peer's row, made when the first of its two parts arrives; keyed by what follows `p` or `d`
// in the parts' keys (the gateway and the peer's topic segment).
function peerRow(rowKey, gatewayId, id) {
  let row = peerRows.get(rowKey);
  if (row) return row;
  const c = card(gatewayId);
  const root = el("li", "peer");
  root.dataset.gateway = gatewayId;
  const top = el("div", "top");
  const name = el("span", "name");
  const distance = el("span", "distance", "–");
  const link = el("span", "link state");
  top.append(name, distance, link);
  const bar = el("div", "bar");
  bar.setAttribute("role", "img");
  const fill = el("div", "fill");
  const marks = el("div", "marks");
  bar.append(fill, marks);
  const details = el("div", "details");
  const words = document.createTextNode("");
  const ageNode = el("span", "age dim");
  details.append(words, ageNode);
  root.append(top, bar, details);
  row = { root, name, distance, link, bar, fill, marks, words, age: ageNode, id, shown: {} };
  peerRows.set(rowKey, row);
  const after = [...peerRows.values()].filter(other => other.root.dataset.gateway === gatewayId && other.id > id)
    .sort((a, b) => (a.id < b.id ? -1 : 1))[0];
  c.peers.insertBefore(root, after === undefined ? null : after.root);
  return row;
}

// Sets a node's text only when it changed: a frame with 400 rows touches only what moved.
function setText(row, field, node, text) {
  if (row.shown[field] === text) return;
  row.shown[field] = text;
  if (node.nodeType === Node.TEXT_NODE) node.data = text; else node.textContent = text;
}

function drawPeer(key, peer) {
  const rowKey = key.slice(2);
  const row = peerRow(rowKey, peer.gateway, peer.id);
  row.root.dataset.peer = peer.name;
  setText(row, "name", row.name, peer.name);
  const lost = peer.link === "lost";
  const [linkText, linkClass] = lost ? ["✗ lost", "bad"] : tone(peer.link, ["ranging"], []);
  if (row.shown.link !== linkText) {
    row.shown.link = linkText;
    setState(row.link, [linkText, linkClass]);
    row.root.classList.toggle("lost", lost);
  }
  row.peer = peer;
  drawDetails(row);
  drawMarks(row);
}

function drawDistance(key, measurement) {
  const row = peerRow(key.slice(2), measurement.gateway, measurement.id);
  row.measurement = measurement;
  setText(row, "distance", row.distance, measurement.distance_text || "–");
  setText(row, "age", row.age, age(measurement.measured));
  drawFill(row);
  drawDetails(row);
}

// Stage with its progress, direction, zones, approaches: in words.
function drawDetails(row) {
  const peer = row.peer, measurement = row.measurement;
  if (!peer) return;
  const words = [];
  if (peer.stage) words.push("stage " + peer.stage + (measurement && measurement.progress ? " " + measurement.progress : ""));
  if (peer.direction) words.push(peer.direction);
  if (peer.zones.length) words.push("in " + peer.zones.join(", "));
  for (const approach of peer.approaches) words.push(approach);
  setText(row, "words", row.words, words.join(" · ") + (words.length ? " · " : ""));
}

// The distance as a bar on one scale for all peers.
function drawFill(row) {
  const distance = row.measurement ? row.measurement.distance : null;
  // A transform, not a width: the bar moves without laying the page out again.
  const width = "scaleX(" + (distance === null ? 0 : Math.min(Math.max(distance / scale, 0), 1)).toFixed(3) + ")";
  if (row.shown.width !== width) {
    row.shown.width = width;
    row.fill.style.transform = width;
  }
  const label = (row.measurement && row.measurement.distance_text || "no distance") + " of " + scale.toFixed(2) + " m" + (row.marksWords || "");
  if (row.shown.label !== label) {
    row.shown.label = label;
    row.bar.setAttribute("aria-label", label);
  }
}

// The rules' distances that apply to the peer, marked on its bar (made again only when they or the scale change).
function drawMarks(row) {
  const marks = row.peer ? row.peer.marks : [];
  const signature = scale + JSON.stringify(marks);
  if (row.shown.marks === signature) return;
  row.shown.marks = signature;
  row.marks.replaceChildren(...marks.filter(mark => mark.m > 0 && mark.m < scale).map(mark => {
    const tick = el("span", "mark");
    tick.style.left = (mark.m / scale * 100).toFixed(2) + "%";
    tick.title = mark.rule + " " + mark.kind + " " + mark.m + " m";
    return tick;
  }));
  // Said to a screen reader with the distance: what the ticks are.
  row.marksWords = marks.length ? "; rules at " + marks.map(mark => mark.rule + " " + mark.kind + " " + mark.m + " m").join(", ") : "";
  drawFill(row);
}

function rescale() {
  let farthest = 5;
  for (const part of parts.values()) if (part.kind === "distance" && part.distance !== null) farthest = Math.max(farthest, part.distance);
  if (farthest === scale) return;
  scale = farthest;
  for (const c of gatewayCards.values()) {
    c.scaleLine.replaceChildren(el("span", null, "0"), el("span", null, scale.toFixed(2) + " m"));
  }
  for (const row of peerRows.values()) {
    drawFill(row);
    drawMarks(row);
  }
}

// MARK: events

function drawEvents(events) {
  const list = document.getElementById("events");
  if (!events.items.length) return list.replaceChildren(el("li", "dim", "none yet"));
  list.replaceChildren(...events.items.slice().reverse().map(event => {
    const item = el("li");
    item.dataset.type = event.type;
    item.append(el("span", "when", event.clock), " ", event.gateway + " · " + event.peer + " · " + event.words);
    return item;
  }));
}

// MARK: the site map

function drawSite(site) {
  document.getElementById("site").hidden = false;
  document.getElementById("site-name").textContent = "site " + site.name;
  setState(document.getElementById("site-status"), tone(site.status === null ? null : "fuse " + site.status, ["fuse online"], ["fuse offline"]));
  const map = document.getElementById("map");
  const placed = site.gateways.filter(gateway => gateway.position);
  const tags = site.tags.filter(tag => tag.position);
  const points = placed.map(g => g.position).concat(...site.zones.map(z => z.polygon), tags.map(t => t.position));
  const notes = [];
  if (!points.length) {
    map.replaceChildren();
    map.setAttribute("viewBox", "0 0 1 1");
    notes.push("no positions yet: the gateways' status gives theirs, the fuse the tags'");
  } else {
    let minX = Math.min(...points.map(p => p.x)), maxX = Math.max(...points.map(p => p.x));
    let minY = Math.min(...points.map(p => p.y)), maxY = Math.max(...points.map(p => p.y));
    const margin = Math.max(maxX - minX, maxY - minY, 1) * 0.12;
    minX -= margin; maxX += margin; minY -= margin; maxY += margin;
    const width = maxX - minX, height = maxY - minY, unit = Math.max(width, height) / 40;
    // North up: y grows downwards on screen.
    const X = x => (x - minX).toFixed(3), Y = y => (maxY - y).toFixed(3);
    map.setAttribute("viewBox", "0 0 " + width.toFixed(3) + " " + height.toFixed(3));
    const drawn = [];
    for (const zone of site.zones) {
      if (!zone.polygon.length) continue;
      const polygon = svg("polygon", { class: "zone", points: zone.polygon.map(p => X(p.x) + "," + Y(p.y)).join(" "), "stroke-width": unit / 4 });
      polygon.dataset.zone = zone.name;
      const top = zone.polygon.reduce((a, b) => (b.y > a.y || (b.y === a.y && b.x < a.x) ? b : a));
      const label = svg("text", { class: "zone-name", x: X(top.x) * 1 + unit / 2, y: Y(top.y) * 1 + unit * 1.6, "font-size": unit * 1.3, "stroke-width": unit / 5 });
      label.textContent = zone.name;
      drawn.push(polygon, label);
    }
    for (const gateway of placed) {
      const x = X(gateway.position.x) * 1, y = Y(gateway.position.y) * 1, r = unit * 0.9;
      const mark = svg("polygon", { class: "gateway-mark", points: [[x, y - r], [x + r, y], [x, y + r], [x - r, y]].map(p => p.join(",")).join(" ") });
      mark.dataset.gateway = gateway.id;
      // Labels towards the middle, so that those at the edges stay on the map.
      const right = x < width / 2;
      const label = svg("text", { x: right ? x + r * 1.3 : x - r * 1.3, y: y + r * 0.5, "font-size": unit * 1.2, "stroke-width": unit / 5,
                                  "text-anchor": right ? "start" : "end" });
      label.textContent = gateway.id;
      drawn.push(mark, label);
    }
    for (const tag of tags) {
      const group = svg("g", { class: "tag" });
      group.dataset.tag = tag.name;
      const x = X(tag.position.x), y = Y(tag.position.y);
      if (tag.accuracy !== null) group.append(svg("circle", { class: "accuracy", cx: x, cy: y, r: tag.accuracy.toFixed(3), "stroke-width": unit / 6 }));
      group.append(svg("circle", { class: "tag-dot", cx: x, cy: y, r: unit * 0.7 }));
      const right = x * 1 < width / 2;
      const label = svg("text", { x: right ? x * 1 + unit : x * 1 - unit, y: y * 1 - unit, "font-size": unit * 1.3, "stroke-width": unit / 5,
                                  "text-anchor": right ? "start" : "end" });
      label.textContent = tag.name + (tag.accuracy_text ? " ±" + tag.accuracy_text : "");
      group.append(label);
      drawn.push(group);
    }
    map.replaceChildren(...drawn);
  }
  const list = document.getElementById("tags");
  list.replaceChildren(...site.tags.map(tag => {
    const item = el("li");
    item.dataset.tag = tag.name;
    let text = tag.position ? "● " + tag.name + "  " + tag.position.x.toFixed(2) + ", " + tag.position.y.toFixed(2) + " m"
      + (tag.accuracy_text ? " ±" + tag.accuracy_text : "") : "○ " + tag.name + "  no position";
    if (tag.zones.length) text += "  in " + tag.zones.join(", ");
    else if (tag.position) text += "  in no zone";
    if (tag.gateways_in_range !== null) text += "  " + tag.gateways_in_range + " gateway" + (tag.gateways_in_range === 1 ? "" : "s");
    item.textContent = text;
    return item;
  }));
  const unplaced = site.gateways.filter(gateway => !gateway.position).map(gateway => gateway.id);
  if (unplaced.length) notes.push("◆ not on the map (no position in status): " + unplaced.join(", "));
  if (!site.zones.length) notes.push("zones not drawn: none in the fuse's status (--fuse-config FILE gives them)");
  if (site.problem) notes.push("unreadable: " + site.problem);
  document.getElementById("site-notes").textContent = notes.join(" · ");
}

// MARK: the stream and the clock

function tick() {
  document.getElementById("clock").textContent = new Date(serverNow() * 1000).toISOString().slice(11, 19);
  for (const row of peerRows.values()) {
    if (row.measurement) setText(row, "age", row.age, age(row.measurement.measured));
  }
}

function connect() {
  const connection = document.getElementById("connection");
  const source = new EventSource("/events");
  source.onopen = () => setState(connection, ["live", "ok"]);
  source.onmessage = message => {
    let frame;
    try { frame = JSON.parse(message.data); } catch (error) { return; }
    apply(frame);
  };
  // The browser reconnects by itself; the server then sends everything again (reset).
  source.onerror = () => setState(connection, ["reconnecting…", "warn"]);
}

connect();
setInterval(tick, 1000);
"""#
}
