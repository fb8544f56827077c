"use strict";
// The results page: GET api/v1/results, one table row per statement (server/web/results.html).

function cell(row, text, label) {
  const td = row.insertCell();
  td.textContent = text;
  td.dataset.label = label;
  return td;
}

function statementText(statement) {
  if (!statement) return "-";
  const [what, value] = Object.entries(statement)[0];
  return what + " " + value;
}

function literatureText(lit) {
  if (!lit.outcome) return "-";
  return lit.outcome + (lit.nimber !== undefined ? " (nimber " + lit.nimber + ")" : "");
}

function sizesText(lit) {
  if (lit.positions_beyond_s6 !== undefined) return String(lit.positions_beyond_s6);
  const glop = lit.glop_2010_size, best = lit.smallest_known_size;
  if (glop === undefined && best === undefined) return "-";
  return (glop === undefined ? "?" : String(glop)) + (best === undefined ? "" : "; " + best);
}

// A Sprouts row goes to its play's table and links to its position's page; a row of another
// game goes to that game's table, unlinked (this page's server holds one game's store).
function addRow(r) {
  const body = document.querySelector("#" + (r.game === "sprouts" ? r.play : r.game) + " tbody");
  const row = body.insertRow();
  const td = row.insertCell();
  td.dataset.label = "position";
  const a = document.createElement(r.href ? "a" : "span");
  if (r.href) a.href = r.href;
  a.textContent = r.position;
  a.className = "key";
  td.appendChild(a);
  cell(row, statementText(r.statement), "proved here");
  cell(row, r.facts === null ? "-" : r.facts.toLocaleString("en"), "facts").className = "num";
  const mark = cell(row, "", "mark");
  const badge = document.createElement("span");
  badge.className = "badge " + (r.checked ? "verified" : r.statement ? "claimed" : "");
  badge.textContent = r.mark;
  mark.appendChild(badge);
  const said = cell(row, literatureText(r.literature), "literature");
  if (r.agrees === false) said.textContent += " (disagrees)";
  cell(row, sizesText(r.literature), "proof sizes").className = "num";
  cell(row, (r.literature.sources || []).join(", ") || "-", "sources");
}

async function load() {
  try {
    const answer = await fetch("api/v1/results");
    const data = await answer.json();
    if (!answer.ok) throw new Error(data.error || answer.statusText);
    data.results.forEach(addRow);
    (data.cram || []).forEach(addRow);
    const list = document.getElementById("sources");
    for (const [key, text] of Object.entries(data.sources)) {
      const dt = document.createElement("dt");
      dt.textContent = key;
      const dd = document.createElement("dd");
      dd.textContent = text;
      list.append(dt, dd);
    }
  } catch (error) {
    const box = document.getElementById("error");
    box.textContent = "could not load the results: " + error.message;
    box.hidden = false;
  }
}

load();
