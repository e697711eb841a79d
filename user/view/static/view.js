// vigil --view: animates the automata from the frames of /events.
//
// A frame (user/view/view_frame.c) is one JSON object: "phase" (running,
// stopped, exited, detached) and "note"; "events", "rate", "lost",
// "probes"; per property ("props") its tier, its states with their live
// slice counts and kinds, and "edges", how often each transition fired so
// far ("gone": unloaded while the program runs, hidden); "violations",
// each with its slice, event and evidence; "selected",
// the slices of the state the page asked for (/select).
//
// The SVG is Graphviz's, from /graph.svg: states are <g id="pP_sS">, with
// a second label line kept free for the count; transitions <g id="pP_tT">.
// An edge whose count grew since the previous frame is drawn "fired".
"use strict";

const token = new URLSearchParams(location.search).get("t") || "";
const q = (path) => path + (path.includes("?") ? "&" : "?") + "t=" + encodeURIComponent(token);
const $ = (id) => document.getElementById(id);
let last = null;
let selected = null;   // [prop, state]

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v; else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}

function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

function select(p, s) {
  selected = [p, s];
  $("selected-title").textContent = "";
  fetch(q("/select?prop=" + p + "&state=" + s));
  document.querySelectorAll("g.node.selected").forEach((g) => g.classList.remove("selected"));
  const g = document.getElementById("p" + p + "_s" + s);
  if (g) g.classList.add("selected");
}

async function loadGraph() {
  const r = await fetch(q("/graph.svg"));
  $("graph").innerHTML = await r.text();
  document.querySelectorAll("#graph g.node").forEach((g) => {
    const m = /^p(\d+)_s(\d+)$/.exec(g.id);
    if (m) g.addEventListener("click", () => select(+m[1], +m[2]));
  });
  if (last) draw(last, null);
}

function drawGraph(f, prev) {
  f.props.forEach((p, pi) => {
    // a property unloaded while the program runs: gone from the picture
    document.querySelectorAll('[id="p' + pi + '"], [id^="p' + pi + '_"]').forEach((g) => {
      g.style.display = p.gone ? "none" : "";
    });
    p.states.forEach((s, si) => {
      const g = document.getElementById("p" + pi + "_s" + si);
      if (!g) return;
      const texts = g.querySelectorAll("text");
      if (texts.length > 1) texts[texts.length - 1].textContent = plural(s.slices, "slice");
      g.classList.toggle("occupied", s.slices > 0);
    });
    p.edges.forEach((n, ti) => {
      const g = document.getElementById("p" + pi + "_t" + ti);
      if (!g) return;
      // fired in the last interval: only a running program has one
      g.classList.toggle("fired", !!prev && n > prev.props[pi].edges[ti]);
      const label = g.querySelector("text");
      if (label) {
        if (!label.dataset.label) label.dataset.label = label.textContent;
        label.textContent = label.dataset.label + " \u00d7" + n;
      }
    });
  });
}

function drawProps(f, prev) {
  const box = $("props");
  box.textContent = "";
  f.props.forEach((p, pi) => {
    if (p.gone) return;
    const rows = p.states.map((s, si) => {
      const tr = el("tr", { class: "clickable kind-" + s.kind },
        el("td", { class: "name" }, s.name),
        el("td", {}, s.kind),
        el("td", { class: "n", id: "count-p" + pi + "-s" + si }, String(s.slices)));
      tr.addEventListener("click", () => select(pi, si));
      return tr;
    });
    const edges = p.edges.map((n, ti) => {
      const fired = !!prev && n > prev.props[pi].edges[ti];
      return el("tr", { class: fired ? "fired" : "" },
        el("td", {}, "transition " + ti),
        el("td", { class: "n", id: "fired-p" + pi + "-t" + ti }, String(n)));
    });
    box.append(
      el("h3", {}, p.name + " ", el("span", { class: "hint" }, p.tier + " tier, " + plural(p.live, "live slice"))),
      el("table", { id: "states-p" + pi },
        el("tr", {}, el("th", {}, "state"), el("th", {}, "kind"), el("th", {}, "slices")), ...rows),
      el("details", {}, el("summary", {}, "transitions fired"), el("table", {}, ...edges)));
  });
}

function kv(obj) {
  return Object.entries(obj).map(([k, v]) => k + "=" + v).join(" ");
}

function drawViolations(f) {
  $("nviolations").textContent = f.violations.length;
  $("nviolations").classList.toggle("none", f.violations.length === 0);
  const ol = $("violations");
  if (ol.children.length === f.violations.length) return;
  ol.textContent = "";
  for (const v of f.violations) {
    const steps = (v.evidence || []).map((s) =>
      el("li", {}, s.from + " → " + s.to + " at ",
        el("span", { class: "mono" }, s.event.kind + " " + s.event.name + "(" + s.event.args.join(", ") + ")"),
        s.stack && s.stack.length ? el("div", { class: "mono" }, s.stack.join(" ← ")) : ""));
    ol.append(el("li", { class: "violation" },
      el("b", {}, v.property), " ", el("span", { class: "mono" }, kv(v.slice)), el("br"),
      v.from + " → " + v.state + " at ", el("span", { class: "ev" }, v.text),
      " (tid " + v.tid + ")",
      el("details", {}, el("summary", {}, plural(steps.length, "step") + " of evidence"), el("ol", {}, ...steps))));
  }
}

function drawSelected(f) {
  const box = $("slices");
  box.textContent = "";
  const s = f.selected;
  if (!s) return;
  const p = f.props[s.prop];
  const rows = s.slices.map((x) =>
    el("tr", {}, el("td", { class: "mono" }, kv(x.slice)), el("td", { class: "mono" }, kv(x.vars)),
      el("td", {}, x.inconclusive ? "may have missed events" : "")));
  box.append(
    el("div", { id: "selected-state" }, p.name + ": " + plural(s.total, "slice") + " in " + p.states[s.state].name +
      (s.total > s.slices.length ? " (first " + s.slices.length + " shown)" : "")),
    el("table", {}, el("tr", {}, el("th", {}, "slice"), el("th", {}, "variables"), el("th", {}, "")), ...rows));
}

function draw(f, prev) {
  const ph = $("phase");
  ph.dataset.phase = f.phase;
  ph.textContent = f.phase === "stopped" ? "stopped at a violation" : f.phase;
  $("note").textContent = f.note || "";
  $("events").textContent = f.events;
  $("rate").textContent = f.rate;
  $("lost").textContent = f.lost;
  $("probes").textContent = f.probes[0] + "/" + f.probes[1];
  $("seq").textContent = f.seq;
  drawGraph(f, prev);
  drawProps(f, prev);
  drawViolations(f);
  drawSelected(f);
}

function connect() {
  const es = new EventSource(q("/events"));
  es.onmessage = (m) => {
    const f = JSON.parse(m.data);
    draw(f, last);
    last = f;
  };
  es.onerror = () => {
    if (last && last.phase !== "running") return;   // vigil has ended
    $("phase").dataset.phase = "connecting";
    $("phase").textContent = "reconnecting…";
  };
}

loadGraph();
connect();
