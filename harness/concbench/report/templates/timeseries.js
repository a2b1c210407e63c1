// Draws the time series of the chosen cell when its <details> is opened (data: report.timeseries).
(function () {
  var SVG = "http://www.w3.org/2000/svg";
  var W = 300, H = 170, L = 58, R = 8, T = 18, B = 30;

  function el(name, attrs, text) {
    var node = document.createElementNS(SVG, name);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function mib(v) { return v >= 1024 ? (v / 1024).toFixed(1) + " GiB" : v.toFixed(v >= 100 ? 0 : 1) + " MiB"; }
  function count(v) { return Math.round(v).toLocaleString("en"); }
  function secs(v) { return v >= 100 ? v.toFixed(0) + " s" : v.toFixed(v >= 10 ? 1 : 2) + " s"; }

  function panel(title, xs, ys, fmt) {
    var svg = el("svg", {width: W, height: H, viewBox: "0 0 " + W + " " + H, "class": "series"});
    var xmax = Math.max(xs[xs.length - 1], 1e-9), ymax = Math.max.apply(null, ys) || 1;
    function x(v) { return L + (W - L - R) * v / xmax; }
    function y(v) { return H - B - (H - T - B) * v / ymax; }
    svg.appendChild(el("text", {x: L, y: 12}, title));
    [0, 0.5, 1].forEach(function (f) {
      svg.appendChild(el("line", {x1: L, x2: W - R, y1: y(f * ymax), y2: y(f * ymax), stroke: "#ddd"}));
      svg.appendChild(el("text", {x: L - 4, y: y(f * ymax) + 3, "text-anchor": "end"}, fmt(f * ymax)));
      var anchor = f === 0 ? "start" : f === 1 ? "end" : "middle";
      svg.appendChild(el("text", {x: x(f * xmax), y: H - B + 14, "text-anchor": anchor}, secs(f * xmax)));
    });
    var points = [];
    for (var i = 0; i < xs.length; i++) {  // steps: a reading holds until the next one
      if (i > 0) points.push(x(xs[i]) + "," + y(ys[i - 1]));
      points.push(x(xs[i]) + "," + y(ys[i]));
    }
    svg.appendChild(el("polyline", {points: points.join(" "), fill: "none", stroke: "#1f77b4", "stroke-width": 1.3}));
    svg.appendChild(el("text", {x: (L + W - R) / 2, y: H - 2, "text-anchor": "middle"}, "time"));
    return svg;
  }

  function draw(details) {
    var data = JSON.parse(details.querySelector(".series-data").textContent);
    var chosen = data[Number(details.querySelector(".series-choice").value)];
    var plot = details.querySelector(".series-plot");
    details.querySelector(".series-note").textContent = chosen.note;
    plot.textContent = "";
    if (!chosen.t) return;
    plot.appendChild(panel("RSS", chosen.t, chosen.rss, mib));
    plot.appendChild(panel("threads", chosen.t, chosen.threads, count));
    plot.appendChild(panel("CPU s", chosen.t, chosen.cpu, secs));
  }

  document.querySelectorAll("details.timeseries").forEach(function (details) {
    details.addEventListener("toggle", function () { if (details.open) draw(details); });
    details.querySelector(".series-choice").addEventListener("change", function () { draw(details); });
    if (details.open) draw(details);
  });
})();
