"""The pages, rendered on the server as plain HTML (no templates engine, no build step).  Everything
interpolated goes through :func:`esc`.  One small hand-written script (:data:`LIVE_JS`) keeps the live page
current over Server-Sent Events; without it the page still works (reload, forms)."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from html import escape
from typing import Any

from device.web.hub import Snapshot
from device.web.security import sole_owner


def esc(value: Any) -> str:
    return escape("" if value is None else str(value), quote=True)


CSS = """
body{font-family:system-ui,sans-serif;margin:0;overflow-wrap:break-word;background:#111;color:#eee;font-size:16px}
nav{background:#222;padding:.5em;display:flex;gap:0 1em;flex-wrap:wrap;align-items:center}
a{color:#9cf}nav a{color:#9cf;text-decoration:none}nav a.on{color:#fff;font-weight:bold}
main{padding:.6em;max-width:1100px}
.screens{display:flex;flex-wrap:wrap;gap:.8em}
figure{margin:0}figcaption{font-size:.9em;color:#aaa}
figure.active img.oled{border-color:#fc6}figure.active figcaption{color:#fc6;font-weight:bold}
img.oled{image-rendering:pixelated;image-rendering:crisp-edges;width:384px;max-width:100%;height:auto;
 background:#000;border:2px solid #333;display:block}
.prompt{font-size:1.1em;margin:.6em 0}.refusal{color:#f88}.status{color:#cc8}
.dock{position:sticky;bottom:0;z-index:1;background:#111;border-top:1px solid #333}
.buttons{padding:.3em 0;display:grid;grid-template-columns:repeat(12,1fr);gap:.3em}
.buttons button{font-size:min(1em,4vw);padding:.55em .1em;grid-column:span 3;touch-action:manipulation}
.buttons button:not(.hold){white-space:nowrap}
.buttons .link{grid-column:1/-1;margin:0}
.buttons button.hold{font-size:.75em;grid-column:span 3;line-height:1.1;padding:.3em .1em}
table{border-collapse:collapse;display:block;overflow-x:auto;max-width:100%}fieldset.guest{border:0;padding:0;margin:0;min-width:0}
td,th{border:1px solid #444;padding:.25em .4em}#check{list-style:none;padding:0}#check li{margin:0 0 .6em;overflow-wrap:break-word}
#chart tr>th:first-child{position:sticky;left:0;background:#111}
code{overflow-wrap:anywhere}
.undone{text-decoration:line-through;color:#888}.refused{color:#f88}
select{background:#222;color:#eee}
input,select,textarea,button{font-size:16px;max-width:100%;box-sizing:border-box}button{padding:.4em .9em}input,button{min-height:44px}
label.tick{display:inline-flex;align-items:center;gap:.4em;min-height:44px}input[type=checkbox]{width:28px;height:28px;margin:0}
a.cancel{display:inline-block;min-width:44px;min-height:44px;line-height:44px;padding:0 .6em;text-align:center}
select{min-height:44px}nav a{display:inline-flex;align-items:center;justify-content:center;min-height:44px;min-width:44px}
td a,main>p>a{display:inline-block;min-height:44px;min-width:44px;line-height:44px;padding:0 .2em;white-space:nowrap;
 box-sizing:border-box;text-align:center}
#timeline li a,#prev,#next{display:inline-block;min-width:44px;min-height:44px;line-height:44px;padding:0 .2em;
 box-sizing:border-box;text-align:center}textarea{width:100%;height:22em;background:#1a1a1a;color:#eee}
.ok{color:#8f8}.fail{color:#f88}.warn{color:#fc6}.skip{color:#aaa}
.cam{max-width:100%;border:1px solid #444}
.trivial{background:#264}.permitted{background:#245}.hazardous{background:#a60}.not_permitted{background:#822}
.unknown{background:#333}
.dice{padding:.3em 0 0}.dice p{margin:.2em 0}
.pad{display:flex;flex-wrap:wrap;gap:.3em;margin:.3em 0}
.pad button{min-width:2.9em;padding:.4em .45em;touch-action:manipulation}
#dice-typed{display:block;margin:0 0 .2em}#dice-undo,#dice-send{padding:.3em .7em}
#phones{list-style:none;padding:0}#phones li{margin:0 0 .8em}form.inline{margin:.2em 0 0}
"""

LIVE_JS = """
(function(){
  var link = document.getElementById('link');
  function tell(text){ if (link) { link.textContent = text; link.hidden = !text; } }
  var es = new EventSource('/events');
  es.onerror = function(){
    tell(es.readyState === EventSource.CLOSED
      ? 'The live view stopped (the Pitboard restarted, or this phone is no longer paired): reload the page.'
      : 'Reconnecting to the Pitboard\u2026 (the screens shown may be old)');
  };
  es.onopen = function(){ tell(''); };
  es.addEventListener('snapshot', function(ev){
    var s = JSON.parse(ev.data);
    // Another game began (from another phone, or at the table): other players, other screens. The page
    // is drawn again for them rather than leaving the old players' frames and names in place.
    var shown = Array.prototype.map.call(document.querySelectorAll('figure[data-player]'),
                                         function(f){ return f.dataset.player; }).join('\\n');
    var playing = s.screens.map(function(sc){ return sc.player; }).join('\\n');
    if (s.screens.length && shown !== playing) { es.close(); location.reload(); return; }
    document.body.dataset.version = s.version;
    s.screens.forEach(function(sc, i){
      var img = document.getElementById('screen-' + i);
      if (img) { img.src = 'data:image/png;base64,' + sc.png; img.dataset.version = s.version; }
    });
    document.querySelectorAll('figure[data-player]').forEach(function(fig){
      var on = fig.dataset.player === s.player;
      fig.classList.toggle('active', on);
      var cap = fig.querySelector('figcaption');
      if (cap) cap.textContent = fig.dataset.player + (on ? ' \\u00b7 to act' : '');
    });
    document.getElementById('prompt').textContent = s.prompt;
    document.getElementById('status').textContent = s.status || '';
    document.getElementById('refusal').textContent = s.refusal ? 'Last refusal: ' + s.refusal : '';
    document.getElementById('notices').textContent = (s.notices || []).join(' · ');
    var ul = document.getElementById('commands');
    if (ul) {
      ul.innerHTML = '';
      s.commands.slice().reverse().slice(0, 10).forEach(function(c){
        var li = document.createElement('li');
        li.textContent = '[' + c.source + '] ' + c.command + (c.accepted ? '' : ' \\u2014 refused: ' + c.reason);
        if (!c.accepted) li.className = 'refused';
        ul.appendChild(li);
      });
    }
  });
  // The roll awaited, typed on the page: one tap per die on its face, then Send (the panel's buttons take
  // several presses a die). The faces go by their place in the list, the roll as a whole.
  var dice = document.getElementById('dice'), typed = [];
  function diceNames(){ return JSON.parse(dice.dataset.names || '[]'); }
  function showTyped(){
    var names = diceNames();
    document.getElementById('dice-faces').value = typed.join(' ');
    document.getElementById('dice-typed').textContent = typed.length
      ? 'Typed: ' + typed.map(function(p){ return names[p - 1]; }).join(' \u00b7 ') : 'Tap each die\u2019s face';
  }
  // "another phone is entering this roll" said here: gone with that roll (an audit: it stood after the roll was
  // sent and the step moved on, "its hold ends by itself in 60 s")
  var held = false;
  function heldDone(){ if (held) { held = false; tell(''); } }
  function showDice(d){
    if (!dice) return;
    if (!d) {
      // the roll is in and the pad goes: the page stayed scrolled down at the roller's screen, the new step's
      // prompt above the top of a phone's screen
      var prompt = document.getElementById('prompt');
      if (!dice.hidden && prompt && prompt.getBoundingClientRect().top < 0) prompt.scrollIntoView({block: 'start'});
      dice.hidden = true; typed = []; heldDone(); return;
    }
    var key = [d.player, d.die, d.label].concat(d.names).join('|');  // another roller: a fresh box
    if (dice.dataset.key !== key) {
      heldDone();
      dice.dataset.key = key; dice.dataset.names = JSON.stringify(d.names); dice.dataset.count = d.count;
      dice.dataset.usual = d.usual == null ? '' : d.usual; dice.dataset.roll = d.roll || 'dice';
      dice.querySelector('[name=die]').value = d.die; dice.querySelector('[name=label]').value = d.label;
      dice.querySelector('[name=player]').value = d.player || '';
      document.getElementById('dice-label').textContent = d.title;
      var pad = document.getElementById('dice-pad');
      pad.innerHTML = '';
      d.names.forEach(function(n, i){
        var b = document.createElement('button');
        b.type = 'button'; b.dataset.place = i + 1; b.textContent = n; pad.appendChild(b);
      });
      typed = [];
      dice.hidden = false;
      showRoller(d.player);
    }
    dice.hidden = false;
    showTyped();
  }
  // the roller's own screen, where the dice being entered show, must not sit under the buttons and the pad
  // (at 360 px they take nearly half the phone's height): for each new roll, and for a page loaded during one
  function showRoller(player){
    var fig = player && document.querySelector('figure[data-player="' + CSS.escape(player) + '"]');
    var dock = document.querySelector('.dock');
    if (fig && dock && fig.getBoundingClientRect().bottom > window.innerHeight - dock.offsetHeight) {
      fig.scrollIntoView({block: 'start'});
    }
  }
  if (dice && !dice.hidden) {
    // the browser's own restoring of the old scroll comes after this script: it would undo the scroll
    if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
    showRoller(dice.querySelector('[name=player]').value);
  }
  if (dice) {
    document.getElementById('dice-typing').hidden = true;  // the pad types; the box is for pages without script
    document.getElementById('dice-pad').addEventListener('click', function(e){
      var p = e.target.dataset && e.target.dataset.place;
      if (!p) return;
      if (typed.length >= +dice.dataset.count) { tell('That is all the dice this roll takes: Send, or Take back.'); return; }
      typed.push(+p); tell(''); showTyped(); sendDraft();
    });
    document.getElementById('dice-undo').addEventListener('click', function(){ typed.pop(); showTyped(); sendDraft(); });
    showTyped();
    // each tap goes to the roller's screen too ("3 5 (2 of 4) typed on the phone"): the table sees the dice being entered.
    // One request at a time, in order (the roll after its taps): a late tap must not show over a newer one.
    var queued = Promise.resolve();
    function post(body){
      var csrf = dice.querySelector('[name=csrf]').value;
      queued = queued.catch(function(){}).then(function(){
        return fetch('/dice', {method: 'POST', body: body, credentials: 'same-origin', headers: {'X-CSRF-Token': csrf}});
      });
      return queued;
    }
    function sendDraft(){
      var body = new URLSearchParams(new FormData(dice)); body.set('draft', '1');
      // another phone entering this roll: its taps stand on the roller's screen, so this pad is emptied and says why
      post(body).then(function(r){
        if (r.status === 409) return r.text().then(function(t){ typed = []; showTyped(); tell(t); held = true; });
      }).catch(function(){});
    }
    var sending = false;  // a roll on its way: a double tap's second Send sent it again (a review of the page)
    dice.addEventListener('submit', function(e){
      e.preventDefault();
      if (sending) return;
      var body = new URLSearchParams(new FormData(dice));
      var n = document.getElementById('dice-faces').value.trim().split(/[\\s,]+/).filter(Boolean).length;
      // one tap on Send with nothing tapped entered a roll of no dice (a skid check passed by): asked first
      if (!n && !window.confirm('Send the roll with no dice at all?')) return;
      // evade dice are one per gear, a T-bone's smash dice its gear: another count is asked about, as the buttons
      // ask (NEXT again: send 2 of 3)
      var usual = dice.dataset.usual;
      if (n && usual !== '' && n !== +usual &&
          !window.confirm(n < +usual ? 'Send ' + n + ' of ' + usual + ' ' + dice.dataset.roll + '?'
                          : 'Send ' + n + ' ' + dice.dataset.roll + ', not the usual ' + usual + '?')) return;
      body.set('on_purpose', '1');
      sending = true;
      post(body)
        .then(function(r){
          if (r.ok) { typed = []; showTyped(); tell(''); return; }
          return r.text().then(function(t){ tell('The roll was not sent: ' + t); });
        })
        .catch(function(){ tell('The roll did not reach the Pitboard: is this phone on its network? Send again.'); })
        .then(function(){ sending = false; });
      // a request the network lost answers late or never: Send works again after a while (a roll sent twice is
      // refused by the Pitboard as a step gone by, not entered again)
      setTimeout(function(){ sending = false; }, 8000);
    });
    // a page loaded during a roll (a reload, a phone woken up) starts with an empty pad: the taps sent before
    // are not in it, so the roller's screen must stop saying them ("HAZARD SLIDE (2 of 4) typed on the phone", and then
    // Send sent only the dice tapped after the reload)
    if (!dice.hidden && dice.dataset.key) sendDraft();
  }
  es.addEventListener('snapshot', function(ev){ showDice(JSON.parse(ev.data).dice); });
  var cam = document.getElementById('camera');
  es.addEventListener('snapshot', function(ev){
    if (cam && cam.hidden && JSON.parse(ev.data).camera !== null) {
      cam.hidden = false; document.getElementById('no-camera').hidden = true;
    }
  });
  if (cam) {
    // The next frame once the last has arrived (or failed), at most one a second, none while the page is
    // not looked at: on a slow link a frame takes longer than a second, and replacing it unfinished
    // showed no frame ever (and kept the page loading).
    var camBusy = !cam.hidden && !cam.complete;
    var camDone = function(){ camBusy = false; };
    cam.addEventListener('load', camDone);
    cam.addEventListener('error', camDone);
    setInterval(function(){
      if (cam.hidden || camBusy || document.hidden) return;
      camBusy = true;
      cam.src = '/camera.jpg?t=' + Date.now();
    }, 1000);
  }
  // What a BACK that undoes asks first, in the words the screens' "UNDONE: ..." says the decisions in ("Undo
  // USA: die rolled: 2, box 1, success yes?"; a long BACK lists each): one tap undid a +2 VP roll with no word,
  // and the long BACK's old question said neither how many decisions it undid nor which.  A BACK that only
  // closes a list asks nothing.
  var pressForm = document.querySelector('form.press');
  var undo = pressForm && pressForm.dataset.undoKey !== undefined
    ? {back: pressForm.dataset.undoBack || null, long: pressForm.dataset.undoLong || null, key: pressForm.dataset.undoKey}
    : null;
  es.addEventListener('snapshot', function(ev){ var u = JSON.parse(ev.data).undo; if (u) undo = u; });
  // What the buttons act on as this page shows it: OK, BACK and NEXT carry it, and the Pitboard does not take
  // a press once it has changed (two phones' NEXT at once recorded two decisions).
  var pressKey = pressForm ? (pressForm.dataset.press || null) : null;
  es.addEventListener('snapshot', function(ev){ var k = JSON.parse(ev.data).press; if (k) pressKey = k; });
  // OK, BACK and NEXT decide (BACK at the top undoes): a second tap within half a second of the first (a
  // double tap) is dropped, so it acts once, even when the screen has already answered the first (on the
  // table's network it answers in milliseconds, and a double tap's second NEXT skipped a whole step);
  // SELECT only moves the cursor and stays quick.
  var lastDecision = 0;
  document.querySelectorAll('form.press').forEach(function(f){
    f.addEventListener('submit', function(e){
      e.preventDefault();
      var b = e.submitter || f.querySelector('button');
      var asked = null;
      if (/^back/.test(b.value) && undo) {
        var question = b.value === 'back:long' ? undo.long : undo.back;
        if (question && !window.confirm(question)) return;
        asked = undo.key;  // the Pitboard refuses the press if the game changed meanwhile
      }
      var deciding = /^(ok|back|next)/.test(b.value);
      if (deciding) {
        var now = Date.now();
        if (now - lastDecision < 500) { tell(b.textContent + ': a second tap within half a second is not taken (a double tap); tap again to press again'); return; }
        lastDecision = now;
      }
      var body = new URLSearchParams();
      body.set('button', b.value.split(':')[0]);
      if (b.value.indexOf(':long') > 0) body.set('long', '1');
      if (asked !== null) body.set('undoes', asked);
      if (deciding && pressKey) body.set('seen', pressKey);
      body.set('csrf', f.querySelector('[name=csrf]').value);
      fetch('/press', {method: 'POST', body: body, credentials: 'same-origin',
                       headers: {'X-CSRF-Token': f.querySelector('[name=csrf]').value}})
        .then(function(r){
          if (r.ok) { if (es.readyState === EventSource.OPEN) tell(''); return; }
          return r.text().then(function(t){ tell(b.textContent + ' was not pressed: ' + t); });
        })
        .catch(function(){
          tell(b.textContent + ' did not reach the Pitboard: is this phone on the same network as the Pitboard? Press again.');
        });
    });
  });
})();
"""

#: The games as their boxes name them (the program's ids, "thunder_road", stay in addresses and files).
TITLES = {"gaslands": "Gaslands: Refuelled", "thunder_road": "Thunder Road: Vendetta",
          "space_race": "Twilight Struggle Space Race", "grand_tour": "Flamme Rouge Grand Tour"}


def title_of(game: str) -> str:
    return TITLES.get(str(game), str(game))


def game_begins(game: str, unfinished: str | None) -> str:
    """The page's answer to "Start this game" (``unfinished``: :meth:`WebService.in_progress`, the game at the
    table that starting another leaves in the log unfinished, or None)."""
    left = " (the one in progress is ended unfinished: it stays in the log, and is not resumed)" if unfinished is not None else ""
    return f"a new {title_of(game)} game begins now{left}"


def spoken(key: Any) -> str:
    """A file's key as the rulebook says it: "not_permitted" is "not permitted"."""
    return str(key).replace("_", " ")


def template_title(key: Any) -> str:
    """A Gaslands template as the rulebook names it: "short_straight" is "Short Straight"."""
    return spoken(key).title()


def options(keys: Sequence[Any], selected: Any, label: Any = spoken) -> str:
    """``<option>``s sending the key, showing it in words."""
    return "".join(f'<option value="{esc(k)}"{" selected" if k == selected else ""}>{esc(label(k))}</option>'
                   for k in keys)


#: The game log page follows the game: each decision the live stream tells of draws the log's entries again (a phone
#: review: a step taken at the table was on the log only after a reload).
LOG_JS = """
(function(){
  var es = new EventSource('/events'), seen = null, asking = false;
  es.addEventListener('snapshot', function(ev){
    var said = JSON.stringify(JSON.parse(ev.data).commands);
    if (seen === null || said === seen || asking) { if (!asking) seen = said; return; }
    seen = said; asking = true;
    fetch(location.href, {headers: {accept: 'text/html'}, credentials: 'same-origin'})
      .then(function(r){ return r.ok ? r.text() : null; })
      .then(function(text){
        if (!text) return;
        var now = new DOMParser().parseFromString(text, 'text/html').getElementById('timeline');
        var here = document.getElementById('timeline');
        if (now && here) here.innerHTML = now.innerHTML;
      })
      .catch(function(){})
      .then(function(){ asking = false; });
  });
})();
"""

#: The New game page's script: what is typed in the box is kept by the phone (sessionStorage, per game) and
#: put back when the page comes again without a result (a reload, New game again after Live): typing a
#: table on a phone, a reload or a swapped-out tab lost it.  The box as the server sent it replaces the
#: draft whenever it holds something else on purpose (Example, a check's result).
SETUP_JS = """
(function(){
  var box = document.getElementById('setup');
  if (!box || !window.sessionStorage) return;
  var key = 'pitboard-setup-' + box.dataset.game;
  var draft = null;
  try { draft = sessionStorage.getItem(key); } catch (e) {}
  if (box.dataset.restore === '1' && draft !== null && draft !== box.value) {
    box.value = draft;
    var note = document.getElementById('draft-note');
    if (note) note.hidden = false;
  }
  function keep(){ try { sessionStorage.setItem(key, box.value); } catch (e) {} }
  keep();
  box.addEventListener('input', keep);
  // Example replaces the box and the draft kept for it: typing not yet checked is asked about first (a web
  // audit: one tap beside the game list lost a table typed on a phone, for good)
  var example = document.getElementById('example');
  if (example) example.addEventListener('click', function(ev){
    if (box.value.trim() && box.value !== box.defaultValue &&
        !window.confirm('Replace what you typed with the example? (Cancel keeps it)')) ev.preventDefault();
  });
})();
"""

NAV = (("/", "Live"), ("/log", "Game log"), ("/setup", "New game"), ("/rules", "Rule facts"),
       ("/calibrate", "Calibrate"), ("/teach", "Teach"), ("/check", "Check"), ("/phones", "Phones"))
#: The pages of :data:`NAV` that only an owner's phone opens (the server's routes guarded ``owner=True``): a guest's
#: nav leaves them out (each tap on one was a refusal page).
OWNER_PAGES = frozenset({"/setup", "/calibrate", "/teach"})
#: Whether the phone a page is drawn for is an owner's: set by the server for each request (its task's own
#: context, :func:`drawn_for`), read by :func:`layout` for the nav and :func:`saving` for the rule facts' forms, as
#: a template's context gives every page the user.  Pages drawn
#: outside a request (tests, the pairing page) are an owner's.
VIEWER_OWNER: ContextVar[bool] = ContextVar("VIEWER_OWNER", default=True)


@contextmanager
def drawn_for(*, owner: bool) -> Iterator[None]:
    """Pages drawn inside are for an owner's phone (``owner``) or a guest's: the nav (:func:`layout`) and the rule
    facts' forms (:func:`saving`)."""
    mark = VIEWER_OWNER.set(owner)
    try:
        yield
    finally:
        VIEWER_OWNER.reset(mark)


def layout(title: str, body: str, *, here: str = "", script: bool | str = False, nav: bool = True) -> str:
    shown = [(h, t) for h, t in NAV if VIEWER_OWNER.get() or h not in OWNER_PAGES]
    links = "".join(f'<a href="{h}"{" class=on" if h == here else ""}>{esc(t)}</a>' for h, t in shown) if nav else ""
    name = script if isinstance(script, str) else "live.js"
    js = f'<script src="/static/{name}" defer></script>' if script else ""
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width,initial-scale=1">'
            f"<title>{esc(title)} · Pitboard</title><link rel=stylesheet href=/static/style.css>{js}</head>"
            f"<body><nav><b>Pitboard</b>{links}</nav><main><h1>{esc(title)}</h1>{body}</main></body></html>")


def csrf_field(token: str) -> str:
    return f'<input type="hidden" name="csrf" value="{esc(token)}">'


def pair_page(token: str, message: str = "", first: str | None = None, screen: str | None = None) -> str:
    """``first``: player 1's name; ``screen``: whose screen shows the code when known (the first player at the
    table with a working screen, or, when no one at it has one, a screen's ``[[screens]]`` player)."""
    msg = f'<p class="refusal" id="pair-message">{esc(message)}</p>' if message else ""
    where = (f"{esc(screen)}'s screen" if screen else f"{esc(first)}'s screen (player 1)" if first else
             "player 1's screen")
    body = (f"<p>Type the six-digit code shown on {where}. It is new each time the Pitboard starts "
            f"(<code>pitboard sim</code> prints it too).</p>{msg}"
            f'<form method="post" action="/pair">{csrf_field(token)}'
            f'<input name="code" id="code" inputmode="numeric" autocomplete="one-time-code" maxlength="12" '
            f'autofocus> <button type="submit" id="pair">Pair</button></form>')
    return layout("Pair this browser", body, nav=False)


#: After the caption of the player whose step it is (the live script sets the same).
TO_ACT = " · to act"


def dice_form(offer: Any, csrf: str) -> str:
    """The box that types a whole roll (hidden while none is awaited; the live script fills it in)."""
    import json

    names = list(offer.names) if offer is not None else []
    key = "|".join([offer.player or "", offer.die, offer.label, *names]) if offer is not None else ""
    pad = "".join(f'<button type="button" data-place="{i}">{esc(n)}</button>' for i, n in enumerate(names, 1))
    listed = ", ".join(f"{i} {n}" for i, n in enumerate(names, 1))
    # an example the roll takes: "e.g. 3 5 1" was refused for a skid roll of four faces (a maker's audit)
    example = " ".join(str(k) for k in (3, 5, 1) if k <= len(names)) or "1"
    return (f'<form class="dice" id="dice" method="post" action="/dice" data-key="{esc(key)}" '
            f'data-names="{esc(json.dumps(names))}" data-count="{offer.count if offer else 0}" '
            f'data-usual="{offer.usual if offer is not None and offer.usual is not None else ""}" '
            f'data-roll="{esc(offer.roll if offer is not None and offer.roll else "dice")}"'
            f'{"" if offer is not None else " hidden"}>{csrf_field(csrf)}'
            f'<input type="hidden" name="die" value="{esc(offer.die if offer else "")}">'
            f'<input type="hidden" name="label" value="{esc(offer.label if offer else "")}">'
            f'<input type="hidden" name="player" value="{esc(offer.player or "" if offer else "")}">'
            f'<p id="dice-label">{esc(offer.title()) if offer is not None else ""}</p>'
            f'<div class="pad" id="dice-pad">{pad}</div>'
            f'<label id="dice-typing">The faces by their place ({esc(listed)}), e.g. {example}: '
            f'<input name="faces" id="dice-faces" inputmode="numeric" autocomplete="off"> '
            f'<input type="checkbox" name="on_purpose" value="1"> Another count on purpose</label>'
            f'<output id="dice-typed"></output>'
            f'<button type="button" id="dice-undo">Take back</button> '
            f'<button type="submit" id="dice-send">Send the roll</button></form>')


def undo_data(undo: Mapping[str, str | None] | None) -> str:
    """The questions a BACK that undoes asks, as the press form's data (the live script asks them)."""
    if undo is None:
        return ""
    return "".join(f' data-undo-{k}="{esc(undo.get(k) or "")}"' for k in ("back", "long", "key"))


def live_page(snap: Snapshot, csrf: str, *, camera: int | None, game: str,
              undo: Mapping[str, str | None] | None = None, press_key: str | None = None) -> str:
    """``undo``: what a BACK that undoes asks first (:func:`device.web.undo_questions`), until the live script
    has the event stream's; ``press_key``: what a press acts on now (the page's OK, BACK and NEXT carry it)."""
    screens = "".join(
        f'<figure data-player="{esc(p)}"{" class=active" if p == snap.prompt_player else ""}>'
        f'<img class="oled" id="screen-{i}" alt="{esc(p)}\'s screen" width="128" height="64" '
        f'data-version="{snap.version}" src="data:image/png;base64,{base64.b64encode(png).decode()}">'
        f"<figcaption>{esc(p)}{TO_ACT if p == snap.prompt_player else ''}</figcaption></figure>"
        for i, (p, png) in enumerate(snap.screens))
    # The four buttons in one row, the held ones below: a bar kept at the foot of the phone's screen
    # (with four or five screens mirrored, buttons after the last one were two screens' height away).
    buttons = "".join(f'<button type="submit" name="button" value="{v}" id="btn-{v.replace(":", "-")}"'
                      f'{" class=hold" if v.endswith(":long") else ""}>{esc(t)}</button>'
                      for v, t in (("select", "SELECT ▶"), ("ok", "OK"), ("back", "BACK"), ("next", "NEXT"),
                                   # the camera counts hazard tokens in Gaslands only
                                   ("select:long", "◀ SELECT (hold)"),
                                   ("ok:long", "OK (hold): camera's tokens" if game == "gaslands" else "OK (hold)"),
                                   ("back:long", "BACK (hold): undo several"), ("next:long", "NEXT (hold): legend")))
    commands = "".join(
        f'<li class="{"" if a else "refused"}">[{esc(s)}] {esc(c)}{"" if a else " — refused: " + esc(r)}</li>'
        for s, c, a, r in list(snap.commands)[::-1][:10])
    src = f' src="/camera.jpg?f={camera}"' if camera is not None else " hidden"
    cam = (f'<h2>Camera</h2><img class="cam" id="camera" alt="the camera\'s latest frame"{src}>'
           f'<p class=skip id=no-camera{" hidden" if camera is not None else ""}>No camera frame (the camera is off '
           f"or has given none yet).</p>")
    body = (f'<p class="prompt" id="prompt">{esc(snap.prompt)}</p><p class="status" id="status">{esc(snap.status)}</p>'
            f'<p class="refusal" id="refusal">{"Last refusal: " + esc(snap.refusal) if snap.refusal else ""}</p>'
            f'<p class="warn" id="notices">{esc(" · ".join(snap.notices))}</p>'
            f'<div class="screens">{screens}</div>'
            f'<div class="dock">{dice_form(snap.dice, csrf)}'
            f'<form class="press buttons" method="post" action="/press"{undo_data(undo)}'
            f'{f" data-press={chr(34)}{esc(press_key)}{chr(34)}" if press_key else ""}>{csrf_field(csrf)}'
            f'<p class="refusal link" id="link" role="status" hidden></p>{buttons}</form></div>'
            f"<h2>Last commands</h2><ul id=commands>{commands}</ul>{cam}")
    return layout(f"Live: {title_of(game)}", body, here="/", script=True)


def _when(stamp: str) -> str:
    """A game's start as a person reads it ("2026-12-03 21:45 UTC"; the log keeps ISO with milliseconds, which
    a phone's column cut to "2026-12-03T21:45:51.668+00:")."""
    from datetime import datetime, timezone

    try:
        moment = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return stamp
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M") + (" UTC" if moment.tzinfo is not None else "")


def games_page(games: Sequence[Any], where: str, at_table: int | None = None) -> str:
    """``at_table``: the game being played (None: not known, the newest unfinished is taken, as `pitboard run`
    resumes the newest unfinished game of any kind).  An audit: one game of each kind read "playing", four at
    once, when only one was at the table."""
    unfinished = [g.id for g in games if not g.finished]
    playing = at_table if at_table is not None else (max(unfinished) if unfinished else None)
    # three columns, each stacked (six in a row made the table 494 px in a 341 px phone, the export links off
    # to the side with nothing to say so)
    rows = "".join(
        f'<tr><td><a href="/log/{g.id}">game {g.id}</a><br>{esc(title_of(g.game))}</td>'
        f'<td>{"ended unfinished" if g.ended_unfinished else "finished" if g.finished else "playing" if g.id == playing else "left unfinished"}<br>'
        f'{esc(_when(g.created))}<br>{g.events} events</td>'
        f'<td><a href="/log/{g.id}/events.jsonl">JSON lines</a><br><a href="/log/{g.id}/events.csv">CSV</a></td></tr>'
        for g in reversed(games))
    body = (f"<p>{esc(where)}</p><table id=games><tr><th>game</th><th>state, begun</th><th>export</th></tr>{rows}"
            "</table>")
    return layout("Game log", body, here="/log")


def timeline_page(game_id: int, tl: Any, refusals: Sequence[tuple[str, str]]) -> str:
    parts = []
    for heading, acts in tl.groups():
        parts.append(f"<h2>{esc(heading)}</h2>")
        for who, entries in acts:
            items = "".join(
                f'<li class="{"undone" if e.undone else ""} {"refused" if e.refused else ""}" id="d{e.decision}">'
                f'<a href="/log/{game_id}/at/{e.decision}">#{e.decision}</a> <i>{esc(e.step)}</i>: {esc(e.text)}'
                f'{" (undone)" if e.undone else ""}{" — REFUSED" if e.refused else ""}</li>' for e in entries)
            parts.append(f"<h3>{esc(who)}</h3><ul>{items}</ul>")
    refused = ""
    if refusals:
        refused = ("<h2>Refused this session (not in the log: a refusal records nothing)</h2><ul>" +
                   "".join(f'<li class="refused">{esc(c)}: {esc(r)}</li>' for c, r in refusals) + "</ul>")
    body = (f'<p><a href="/log/{game_id}/events.jsonl">export JSON lines</a> · '
            f'<a href="/log/{game_id}/events.csv">export CSV</a> · each # shows the dashboards after that step</p>'
            f'<div id="timeline">{"".join(parts)}</div>{refused}')
    return layout(f"Game {game_id}: {title_of(tl.game)}", body, here="/log", script="log.js")


#: What each game's set-up holds, as the page's first words say it (every game's read "Players in seating order
#: (clockwise), their vehicles, the scenario": Space Race has no players, the Grand Tour teams: a phone audit).
_SETUP_INTRO = {
    "gaslands": "Players in seating order (clockwise), their vehicles, the scenario",
    "thunder_road": "Players in seating order (turns go round in it), their vehicles, who goes first, the road tiles",
    "space_race": "The Space Race track your board prints (its edition, or your own boxes): the two sides need no names",
    "grand_tour": "The teams (each a Rouleur and a Sprinteur), the stages, the time sheet and the specialties",
}


def replay_page(game_id: int, decision: int, entry: Any, players: Sequence[str], last: int) -> str:
    imgs = "".join(f'<figure><img class="oled" alt="{esc(p)}" width="128" height="64" '
                   f'src="/log/{game_id}/at/{decision}/screen/{i}.png"><figcaption>{esc(p)}</figcaption></figure>'
                   for i, p in enumerate(players))
    prev = f'<a href="/log/{game_id}/at/{decision - 1}" id=prev>◀ step {decision - 1}</a>' if decision > 0 else ""
    nxt = f'<a href="/log/{game_id}/at/{decision + 1}" id=next>step {decision + 1} ▶</a>' if decision < last else ""
    what = esc(entry.whole or entry.text) if entry is not None else ""
    links = " · ".join(x for x in (prev, f"<a href=/log/{game_id}#d{decision}>timeline</a>", nxt) if x)
    body = (f"<p>{links}</p>"
            f"<p>After decision {decision}: {what}</p><div class=screens>{imgs}</div>")
    return layout(f"Game {game_id} at step {decision}", body, here="/log")


def setup_page(game: str, games: Sequence[str], text: str, csrf: str, message: str = "", ok: bool = False,
               can_start: bool = True, once: str = "", restore: bool = False, begun: bool = False,
               playing: str | None = None, ticked: bool = False, table: str = "", why_not: str = "") -> str:
    """The set-up form; ``once``: this form's own token, so that the same form sent twice begins one game;
    ``table``: the page's count of games begun as this form is drawn (a Start is refused once another began);
    ``restore``: the box holds only the example (the page asked for plainly), so the phone may put back what
    was being typed in it (SETUP_JS); ``playing``: the game being played, which Start this game would leave
    unfinished: starting then needs the box "End the game in progress" ticked; ``why_not``: why this host does not
    start this game (said in place of Start)."""
    opts = "".join(f'<option value="{esc(g)}"{" selected" if g == game else ""}>{esc(title_of(g))}</option>'
                   for g in games)
    live = ' <a href="/" id="to-live">Go to the Live page</a>' if begun else ""  # ``begun``: a game began
    msg = f'<p class="{"ok" if ok else "fail"}" id="setup-message">{esc(message)}{live}</p>' if message else ""
    replace = ("" if not playing or not can_start else
               f'<p class=warn id=playing>{esc(playing)} is being played. <label class=tick><input type=checkbox '
               f'name=replace value=1 id=replace{" checked" if ticked else ""}> End the game in progress</label> '
               '(it stays in the game log)</p>')
    start = ('<button type=submit name=action value=start id=start>Start this game</button>' if can_start else
             f"<span class=skip id=no-start>({check_words(why_not)})</span>" if why_not else
             "<span class=skip>(starting a game from the page: not wired for this host; save the file as the "
             "config's [game] setup and restart)</span>")
    once_field = f'<input type="hidden" name="once" value="{esc(once)}">' if once else ""
    once_field += f'<input type="hidden" name="shown" value="{esc(game)}">'  # the game the box's text is for
    if table:
        once_field += f'<input type="hidden" name="table" value="{esc(table)}">'
    intro = _SETUP_INTRO.get(game, "The game's set-up")
    body = (f"<p>{esc(intro)}: the same TOML as "
            f"<code>pitboard play {esc(game)} --setup FILE</code>, checked by the game's own rules.</p>{msg}"
            f'<form method=post action=/setup>{csrf_field(csrf)}{once_field}<label>Game <select name=game id=game>'
            f"{opts}</select></label> <button type=submit name=action value=example id=example>Example</button>"
            # above the 22em box: "Tick 'End the game in progress'" was said at the top of a phone's screen while
            # the box to tick lay a screen further down, under the text box
            f"{replace}"
            f'<p class=warn id=draft-note hidden>Your unsent typing is back (kept by this phone); Example starts '
            f'again from the example.</p><textarea name=setup id=setup spellcheck=false wrap=off autocapitalize=off autocomplete=off autocorrect=off data-game="{esc(game)}"'
            f'{" data-restore=1" if restore else ""}>{esc(text)}</textarea>'
            f"<button type=submit name=action value=check id=check>Check</button> {start}</form>")
    return layout("New game", body, here="/setup", script="setup.js")


def chart_page(chart: dict[str, list[str]], saved: dict[str, list[str]], statuses: Sequence[str], gear: int,
               verdicts: Sequence[tuple[str, str]], csrf: str, where: str, message: str = "", more: str = "",
               ok: bool = True) -> str:
    head = "".join(f"<th>gear {g}</th>" for g in range(1, 7))
    rows = []
    for name, row in chart.items():
        cells = []
        for g, cell in enumerate(row, start=1):
            opts = options(statuses, cell)
            cells.append(f'<td class="{esc(cell)}"><select name="{esc(name)}.{g}" id="cell-{esc(name)}-{g}">{opts}'
                         f"</select></td>")
        mark = " *" if name in saved else ""
        rows.append(f"<tr><th>{esc(template_title(name))}{mark}</th>{''.join(cells)}</tr>")
    vrows = "".join(f'<tr><td>{esc(template_title(n))}</td><td class="{esc(v)}" id="verdict-{esc(n)}">'
                    f"{esc(spoken(v))}</td></tr>" for n, v in verdicts)
    gears = "".join(f'<option{" selected" if g == gear else ""}>{g}</option>' for g in range(1, 7))
    msg = f'<p class="{"ok" if ok else "fail"}" id="chart-message">{esc(message)}</p>' if message else ""
    body = (f"<h2>Gaslands: the permitted-gears chart</h2><p>Cells marked <i>unknown</i> are never flagged; fill them "
            f"in from the icons on your own templates. Saved as <code>{esc(where)}</code> ([chart], the TOML that "
            f"<code>pitboard rules gaslands templates --chart</code> and a setup file's [chart] read; a new game "
            f"takes it, begun here or by the Pitboard from its setup file, whose own [chart] wins). * = a row you "
            f"changed.</p>{msg}"
            f'<form method=post action=/rules/chart>{csrf_field(csrf)}'
            + saving(f'<table id=chart><tr><th></th>{head}</tr>{"".join(rows)}</table>',
                     "<button type=submit id=save-chart>Save chart</button>") + "</form>"
            f'<h2>Verdicts</h2><form method=get action=/rules><label>gear <select name=gear id=gear>{gears}</select>'
            f'</label> <button type=submit id=show-gear>Show</button></form><table id=verdicts>{vrows}</table>{more}')
    return layout("Rule facts", body, here="/rules")


def fire_section(faces: Sequence[dict[str, Any]], effects: Sequence[str], csrf: str, where: str,
                 message: str = "") -> str:
    from device.web.setup import MAX_FIRE_MOVES  # the save's own bound (max=12 here made a saved 13 unsendable)

    rows = []
    for f in faces:
        label = str(f.get("label", ""))
        opts = options(effects, f.get("effect"))
        rows.append(f'<tr><th>{esc(label)}</th><td class="{esc(f.get("effect"))}"><select name="{esc(label)}.effect" '
                    f'id="fire-{esc(label)}-effect">{opts}</select></td><td><input name="{esc(label)}.moves" '
                    f'id="fire-{esc(label)}-moves" type=number min=0 max={MAX_FIRE_MOVES} value="{int(f.get("moves", 0) or 0)}">'
                    f"</td></tr>")
    msg = f'<p class="ok" id="fire-message">{esc(message)}</p>' if message else ""
    return (f"<h2>Thunder Road: the Fire die</h2><p>What each face does is not in the sources: <i>unknown</i> asks "
            f"the table to rule. Saved as <code>{esc(where)}</code> ([fire_die], as in a setup file; a new game "
            f"takes it, begun here or by the Pitboard from its setup file, whose own [fire_die] wins).</p>{msg}<form method=post action=/rules/fire>{csrf_field(csrf)}"
            + saving(f"<table id=fire><tr><th>face</th><th>effect</th><th>moves (for moves)</th></tr>{''.join(rows)}"
                     "</table>", "<button type=submit id=save-fire>Save the Fire die</button>")
            + "</form>")


#: Under a rule facts form on a guest's phone, in place of its Save button.
GUEST_SAVES = "Only an owner's phone saves these; this phone is a guest's (an owner's phone changes that on Phones)."


def saving(fields: str, button: str) -> str:
    """A form's fields and its Save button; on a guest's phone (:func:`drawn_for`) the fields are shown disabled
    (read, not changed) and a line says who saves them (a guest's Save was refused only after the phone had been
    typed on)."""
    if VIEWER_OWNER.get():
        return fields + button
    return f'<fieldset disabled class=guest>{fields}</fieldset><p class="skip guest-saves">{esc(GUEST_SAVES)}</p>'


def check_words(text: str) -> str:
    """A check line's words as HTML: its `commands` as code, and a path breakable after each "/" only (a phone
    review: raw backticks, and "table_calibration.jso|n" broken mid-word)."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", esc(text).replace("/", "/<wbr>"))


def check_page(lines: Sequence[Any]) -> str:
    # one entry a line, the status and part above the words: as a three-column table at phone width the
    # first two columns shrank to a letter wide ("W A R N", "cali brat ion")
    rows = "".join(f'<li><b class="{esc(c.status.lower())}">{esc(c.status)}</b> <b>{esc(c.part)}</b>'
                   f"<br>{check_words(c.detail)}</li>" for c in lines)
    body = (f"<p>The files and parts the appliance reads. The bus and pin probes of <code>pitboard check</code> "
            f"are not run here: the running appliance holds them.</p><ul id=check>{rows}</ul>")
    return layout("Check", body, here="/check")


#: What a guest's phone is told of an owner's page (a new game, calibrating, teaching, the rule facts saved).
OWNER_ONLY = ("only an owner's phone starts a game, calibrates, teaches the dice and saves the rule facts; this "
              "phone is a guest's (it watches, presses and types rolls). An owner's phone makes it an owner's on the "
              "Phones page")


def owner_only_page() -> str:
    body = (f'<p class=fail id=owner-only>{esc(OWNER_ONLY[0].upper() + OWNER_ONLY[1:])}.</p>'
            f'<p>The first phone paired after the Pitboard starts, or while no owner&#x27;s phone is paired, is the '
            f'owner&#x27;s. <a href="/phones">Phones</a> lists which phones are owners&#x27;.</p>')
    return layout("An owner's page", body)


def _ago(seconds: float) -> str:
    minutes = int(seconds // 60)
    return "just now" if minutes < 1 else f"{minutes} min ago" if minutes < 120 else f"{minutes // 60} h ago"


def _phone_form(csrf: str, action: str, handle: str, label: str, extra: str = "") -> str:
    return (f'<form method=post action={action} class=inline>{csrf_field(csrf)}'
            f'<input type=hidden name=phone value="{esc(handle)}">{extra}'
            f'<button type=submit>{esc(label)}</button></form>')


def phones_page(sessions: Sequence[Any], me: Any, now: float, csrf: str, *, message: str = "",
                ok: bool = True) -> str:
    """The phones paired since the appliance started, this one first, each an owner's or a guest's.  An owner's
    phone forgets a phone (its next request asks for the code again: a guest who has left, a phone lost at the
    table) and makes a guest's an owner's or back; a guest's forgets only itself.  A restart forgets every phone."""
    ordered = sorted(sessions, key=lambda x: (x is not me, not x.owner, x.since))
    rows = []
    for x in ordered:
        this = " <b>(this phone)</b>" if x is me else ""
        role = "an owner&#x27;s phone" if x.owner else "a guest&#x27;s phone"
        forms = []
        if x is me:
            forms.append(_phone_form(csrf, "/phones/forget", x.handle, "Forget this phone (it asks for the code again)"))
        elif me.owner:
            forms.append(_phone_form(csrf, "/phones/forget", x.handle, "Forget"))
        if me.owner and not sole_owner(x, sessions):  # the last owner's phone stays an owner's
            label = "Make it a guest's" if x.owner else "Make it an owner's"
            forms.append(_phone_form(csrf, "/phones/role", x.handle, label,
                                     f'<input type=hidden name=role value={"guest" if x.owner else "owner"}>'))
        rows.append(f'<li>{esc(x.who)}, paired {esc(_ago(now - x.since))}, '
                    f'{role}{this}{"".join(forms)}</li>')
    msg = f'<p class={"ok" if ok else "fail"} id=phones-message>{esc(message)}</p>' if message else ""
    body = (f"{msg}<p>The first phone paired after the Pitboard starts, or while no owner&#x27;s phone is paired, "
            "is the owner&#x27;s: it starts another game, "
            "calibrates, teaches dice faces and edits the rule facts. Later phones are guests&#x27;: they watch, "
            "press and type rolls, as the table&#x27;s buttons do. An owner&#x27;s phone makes another an "
            "owner&#x27;s, and forgets a phone (a guest who has left, a phone lost at the table): it asks for the "
            "code again. Restarting the service forgets every phone.</p>"
            f"<ul id=phones>{''.join(rows)}</ul>")
    return layout("Phones", body, here="/phones")


def teach_page(csrf: str, *, frame: int | None, die: str = "", face: str = "", token: str | None = None,
               dice: int = 0, message: str = "", ok: bool = False, templates: str = "", library: str = "") -> str:
    msg = f'<p class="{"ok" if ok else "fail"}" id="teach-message">{esc(message)}</p>' if message else ""
    names = (f'<label>die <input name=die id=die value="{esc(die)}" placeholder="skid"></label> '
             f'<label>face <input name=face id=face value="{esc(face)}" placeholder="SHIFT"></label>')
    head = "<h2>A die face</h2>"
    if token is not None:
        found = f"{dice} {'die' if dice == 1 else 'dice'} found"
        if dice == 1:
            said = f"It becomes an example of <b>{esc(die)} {esc(face)}</b> once you confirm."
            confirm = (f'<form method=post action=/teach/confirm>{csrf_field(csrf)}<input type=hidden name=token '
                       f'value="{esc(token)}"><button type=submit id=confirm>Add to the face library</button> '
                       f'<a class=cancel href="/teach">cancel</a></form>')
        else:  # the library is taught one die at a time (a mixed roll must not be taught as one face)
            said = ("A face is taught one die at a time: leave one die on the tray, with the face to teach up, "
                    "and take the crop again.")
            confirm = '<p><a href="/teach" id=again>Take another crop</a></p>'
        body = (f"{msg}<p>The crop taken: {found} (outlined). {said}</p>"
                f'<img class="cam" id="crop" alt="the crop to teach" src="/teach/crop/{esc(token)}.png">{confirm}')
    elif frame is None:
        body = (f"{msg}<p class=skip>No camera frame: teaching from the live camera needs the camera "
                f"(<code>pitboard sim GAME --dice-images FOLDER</code> puts photos on the tray with r). "
                f"<code>pitboard teach dice --die NAME --face FACE IMAGES</code> teaches from photos.</p>")
    else:
        body = (f"{msg}<p>Put one die on the tray, showing the face to teach; take the crop, check it, "
                f"then confirm. Teach each face a few times, with the die turned and moved.</p><img class=cam id=tray alt=\"the tray now\" src=\"/teach/tray.png?f={frame}\">"
                f'<form method=post action=/teach>{csrf_field(csrf)}{names} '
                f'<button type=submit id=take>Take this crop</button></form>')
    return layout("Teach dice faces and templates", head + body + library + templates, here="/teach")


def library_section(csrf: str, view: Any, *, message: str = "", ok: bool = False) -> str:
    """The teach page's face library (``device.web.teach.LibraryView``): each die's faces and examples, and an
    undo of the last teaching that names what it takes back."""
    msg = f'<p class="{"ok" if ok else "fail"}" id="library-message">{esc(message)}</p>' if message else ""
    head = f"<h2 id=library>The face library</h2>{msg}"
    where = f"<p class=skip>{esc(view.path)}: the file <code>pitboard teach dice</code> and the appliance use.</p>"
    if view.problem:
        return f'{head}<p class=fail id=library-problem>{esc(view.problem)}</p>{where}'
    if not view.dice:
        return f"{head}<p id=library-empty>No face taught yet.</p>{where}"
    rows = "".join(f"<tr><th>{esc(die)}</th><td>" + ", ".join(f"{esc(face)} {n}" for face, n in faces) + "</td></tr>"
                   for die, faces in view.dice)
    table = f"<table id=library-faces><tr><th>die</th><td>faces: examples</td></tr>{rows}</table>"
    if view.last:
        undo = (f"<form method=post action=/teach/undo>{csrf_field(csrf)}<input type=hidden name=last "
                f'value="{esc(view.mark)}"><p>Last teaching: <b id=library-last>{esc(view.last)}</b> '
                f"<button type=submit id=undo>Undo the last teaching</button></p></form>")
    else:
        undo = "<p class=skip>No teaching is recorded to undo.</p>"
    return head + table + undo + where


def template_section(csrf: str, names: Sequence[str], *, frame: int | None, calibrated: bool, name: str = "",
                     token: str | None = None, text: str = "", message: str = "", ok: bool = False) -> str:
    """The teach page's second part: an untagged template's outline from the live camera."""
    msg = f'<p class="{"ok" if ok else "fail"}" id="outline-message">{esc(message)}</p>' if message else ""
    head = "<h2 id=templates>A template's outline</h2>"
    if token is not None:
        return (f"{head}{msg}<p>Learnt {esc(text)} (drawn in magenta where it lies). Add it once it follows the "
                f"template's edge.</p><img class=cam id=outline alt=\"the outline learnt\" "
                f'src="/teach/outline/{esc(token)}.png"><form method=post action=/teach/template/confirm>'
                f'{csrf_field(csrf)}<input type=hidden name=token value="{esc(token)}"><button type=submit '
                f"id=confirm-outline>Add to the taught outlines</button> <a class=cancel href=/teach#templates>cancel</a></form>")
    if frame is None or not calibrated:
        why = "the camera" if frame is None else "a calibration (the Calibrate page)"
        return f"{head}{msg}<p class=skip>Teaching a template from the live camera needs {why}.</p>"
    opts = options(names, name, template_title)
    return (f"{head}{msg}<p>Lay the template alone on the mat, its end squarely against the FRONT of one tagged "
            f"car, turning right; nothing else on the mat.</p><form method=post action=/teach/template>"
            f"{csrf_field(csrf)}<label>template <select name=template id=template>{opts}</select></label> "
            f"<button type=submit id=take-outline>Learn its outline</button></form>")


def calibrate_page(csrf: str, *, frame: int | None, current: str, size: str = "", mat: str = "", points: str = "",
                   token: str | None = None, text: str = "", message: str = "", ok: bool = False) -> str:
    msg = f'<p class="{"ok" if ok else "fail"}" id="calibrate-message">{esc(message)}</p>' if message else ""
    now = f"<p id=calibration-now>Now: {esc(current)}</p>"
    if token is not None:
        body = (f"{msg}<p id=proposal>Calibrated {esc(text)}.</p><p>Check the drawing: the blue outline on the "
                f"mat's edge, the red dots on its corners (named), the zones where the dice tray and the token "
                f"zones lie. Save it once it fits.</p><img class=cam id=preview alt=\"the calibration drawn on the "
                f'frame" src="/calibrate/preview/{esc(token)}.png"><form method=post action=/calibrate/confirm>'
                f'{csrf_field(csrf)}<input type=hidden name=token value="{esc(token)}"><button type=submit '
                f"id=confirm-calibration>Save this calibration</button> <a class=cancel id=cancel-calibration href=/calibrate>cancel</a></form>{now}")
    elif frame is None:
        body = (f"{msg}<p class=skip>No camera frame: calibrating from the live camera needs the camera. "
                f"<code>pitboard calibrate IMAGE</code> calibrates from a photo.</p>{now}")
    else:
        body = (f"{msg}<p>The four corner tags in view, nothing over them; or type the mat's four corners in "
                f"pixels of the frame below (top-left, top-right, bottom-right, bottom-left). The same as "
                f"<code>pitboard calibrate</code>, saved where it saves.</p>"
                f'<a href="/calibrate/frame.jpg?f={frame}"><img class=cam id=frame alt="the camera now" '
                f'src="/calibrate/frame.jpg?f={frame}"></a>'
                f"<p class=skip>{esc(size)}</p>"
                f"<form method=post action=/calibrate>{csrf_field(csrf)}"
                f'<label>mat (mm) <input name=mat id=mat value="{esc(mat)}" placeholder="800x450"></label> '
                f'<label>corners (px, optional) <input name=points id=points size=40 value="{esc(points)}" '
                f'placeholder="x,y x,y x,y x,y"></label> <button type=submit id=calibrate>Calibrate from this '
                f"frame</button></form>{now}")
    return layout("Calibrate the table", body, here="/calibrate")


def facts_section(game: str, values: Sequence[tuple[Any, str]], cards: Sequence[dict[str, Any]], timings: Sequence[str],
                  csrf: str, where: str, message: str = "", ok: bool = True) -> str:
    """One game's unknown rule facts as a form (device.web.facts)."""
    titles = {"thunder_road": "Thunder Road: vehicles and commands", "grand_tour": "Grand Tour: the time sheet and "
              "the specialty cards"}
    def field(f: Any, v: str) -> str:
        if f.kind == "yes/no":  # a reading of the rules: one of two, chosen
            return f'<select name="{esc(f.field)}" id="fact-{esc(f.field)}">{options(("no", "yes"), v)}</select>'
        return f'<input name="{esc(f.field)}" id="fact-{esc(f.field)}" value="{esc(v)}" size=12>'

    rows = "".join(f'<tr><th><label for="fact-{esc(f.field)}">{esc(f.label)}</label></th><td class="{esc(v)}">'
                   f"{field(f, v)}</td><td class=skip>{esc(f.hint)}</td></tr>" for f, v in values)
    card_rows = ""
    if cards:
        out = []
        for c in cards:
            cid = esc(c.get("id"))
            opts = options(timings, c.get("timing"))
            out.append(f'<tr><th>{cid}</th><td><input name="card.{cid}.name" id="card-{cid}-name" '
                       f'value="{esc(c.get("name"))}" size=16></td><td class="{esc(c.get("timing"))}">'
                       f'<select name="card.{cid}.timing" id="card-{cid}-timing">{opts}</select></td>'
                       f'<td><input name="card.{cid}.text" id="card-{cid}-text" value="{esc(c.get("text"))}" size=40>'
                       f"</td></tr>")
        card_rows = ("<h3>Specialty cards</h3><p>Copy each card's name, timing and text from the printed sheet "
                     "(a card is known once its timing and text are filled in).</p><table id=cards><tr><th>card</th>"
                     f"<th>name</th><th>timing</th><th>text</th></tr>{''.join(out)}</table>")
    msg = f'<p class="{"ok" if ok else "fail"}" id="facts-{esc(game)}-message">{esc(message)}</p>' if message else ""
    return (f'<h2 id="facts-{esc(game)}">{esc(titles.get(game, game))}</h2><p>Not in the sources: <i>unknown</i> '
            f"until you fill them in. Checked by the game's own set-up, then saved as <code>{esc(where)}</code> "
            f"(the setup file's own tables; a new game takes them, begun here or by the Pitboard from its setup "
            f"file, whose own values win).</p>{msg}"
            # (to the message when the answer refuses the save: it stood at the top of a long page; the table's
            # id was the heading's too)
            f'<form method=post action="/rules/facts/{esc(game)}#facts-{esc(game)}-message">{csrf_field(csrf)}'
            + saving(f'<table id="facts-{esc(game)}-table">{rows}</table>{card_rows}',
                     f'<button type=submit id="save-facts-{esc(game)}">Save</button>') + "</form>")
