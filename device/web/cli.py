"""The web page's command-line part: ``pitboard sim GAME --web HOST:PORT``, the page beside ``pitboard run``
when ``[web] enabled = true``, and ``pitboard bench web``.

Registered after ``device.cli_device`` (see ``device.cli.PLUGINS``): it adds ``--web`` to the ``sim``
parser and puts a handler in front of ``sim`` and ``run`` that hands over to theirs whenever the web
page is not asked for, so those commands behave exactly as before unless the page is turned on.
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Callable
from typing import Any


def register(groups: dict[str, argparse._SubParsersAction[argparse.ArgumentParser]]) -> None:
    top = groups["top"]
    sim = top.choices.get("sim")
    if sim is not None:
        sim.add_argument("--web", metavar="HOST:PORT",
                         help="also serve the web page (live screens, game log, set-up) on HOST:PORT, e.g. "
                              "127.0.0.1:8080; the pairing code is printed and shown on player 1's screen")
        sim.set_defaults(func=_before(sim.get_default("func"), cmd_sim_web, lambda a: getattr(a, "web", None)))
    run = top.choices.get("run")
    if run is not None:
        run.set_defaults(func=_before(run.get_default("func"), cmd_run_web, _web_enabled))
    p = groups["bench"].add_parser("web", help="press → page update latency, page weight, the server's memory (JSON)")
    p.add_argument("--presses", type=int, default=40, help="presses to time (default 40)")
    p.add_argument("--browser", action="store_true",
                   help="also time the update in headless Chromium (needs chromium and chromium-driver)")
    p.add_argument("--json", action="store_true", help="accepted for symmetry: JSON is the only output")
    p.set_defaults(func=cmd_bench_web)


def _before(original: Callable[[argparse.Namespace], int] | None, ours: Callable[[argparse.Namespace], int],
            wanted: Callable[[argparse.Namespace], Any]) -> Callable[[argparse.Namespace], int]:
    def handler(args: argparse.Namespace) -> int:
        if wanted(args) or original is None:
            return ours(args)
        return original(args)

    return handler


def _user_error(message: str) -> Exception:
    from device.cli import UserError

    return UserError(message)


def _web_enabled(args: argparse.Namespace) -> bool:
    from device.config import ConfigError, load_config

    try:
        return bool(load_config(args.config).web.enabled)
    except ConfigError:
        return False  # run's own handler reports it


# -- sim --web ------------------------------------------------------------------------------------------


def cmd_sim_web(args: argparse.Namespace) -> int:
    from device.cli_device import keystrokes
    from device.sim import Sim, play_at_terminal, stream_chars
    from device.store import StoreError

    interactive = (args.keys is None and not args.plain and sys.stdin.isatty() and sys.stdout.isatty())
    try:
        sim = Sim(args.game, setup=args.setup, db=args.db, keep_log=not args.no_log, new=args.new,
                  dice_images=args.dice_images, style=args.style, live=interactive, web=args.web)
    except (LookupError, ValueError, StoreError) as exc:
        raise _user_error(str(exc)) from None
    except OSError as exc:
        raise _user_error(str(exc)) from None
    except Exception as exc:
        reason = getattr(exc, "reason", None)
        if reason is None:
            raise
        raise _user_error(f"the setup was refused: {reason}") from None

    def stop(*_: Any) -> None:
        sim.quit = True

    signal.signal(signal.SIGTERM, stop)
    try:
        sim.step()
        if interactive:
            play_at_terminal(sim, sys.stdin, tick=0.05)
        else:
            if args.keys is not None:
                sim.feed(keystrokes(args.keys))
            print("serving the web page; keys: s SELECT, o OK, b BACK, n NEXT, q quit (Ctrl-C stops)", flush=True)
            sim.serve(None if args.keys is not None else stream_chars(sys.stdin))
    except KeyboardInterrupt:
        pass
    finally:
        sim.close()
    print(sim.log_text(), flush=True)
    return 0


# -- run with [web] enabled -----------------------------------------------------------------------------


def cmd_run_web(args: argparse.Namespace) -> int:
    """``pitboard run`` with the page: the same appliance and loop, the page's server in a thread."""
    from device.cli_device import start_appliance

    config, appliance = start_appliance(args.config)
    stopping = False

    def stop(*_: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)  # systemd stops the unit with SIGTERM: finish the step, close cleanly
    return run_with_web(config, appliance, lambda: stopping)


def run_with_web(config: Any, appliance: Any, stop: Callable[[], bool],
                 log: Callable[[str], None] = lambda m: print(f"pitboard: {m}", file=sys.stderr, flush=True),
                 started: Callable[[Any], None] | None = None) -> int:
    """Serve the page of ``appliance`` on ``[web] host:port`` while its loop runs until ``stop()``; the
    appliance is closed at the end, whatever happens.  ``started`` is told the running service (tests)."""
    from device.cli_device import begin_from_page, probe_game, probe_vision_files, read_setup
    from device.web import WebService
    from device.web.pages import game_begins, title_of
    from games import game_package

    def check(playing: Any = None) -> list[Any]:
        """``playing``: the game in progress, whose setup is checked (one begun from the page is not [game]'s)."""
        return [*probe_game(config, playing), *probe_vision_files(config)]

    web: Any = None
    # A game the page asked for, begun by the loop between two runs (see below): begun inside the old loop's
    # step, the presses and the camera reading of that step went to the old game, and its redraw came after
    # the new game's.
    asked: list[tuple[str, Any]] = []

    def new_game(game: str, options: Any) -> str:
        """The page's "Start this game" (on the page's thread); ``pitboard run`` resumes the game after a restart
        (the newest unfinished game)."""
        playing = web.in_progress()
        asked.append((game, options))
        return game_begins(game, playing)

    def begin(game: str, options: Any) -> None:
        try:
            app = begin_from_page(appliance, config, game, options, log=log)
        except Exception as exc:  # noqa: BLE001 - the table goes on with the game it had, and is told why
            reason = getattr(exc, "reason", None) or str(exc)
            log(f"the game from the web page could not begin: {reason}")
            appliance.app.notify("not_started", f"NOT STARTED: {title_of(game)}: {reason}", None)
            return
        web.attach(app, appliance.game_id, options)

    try:
        try:
            options = read_setup(game_package(config.game.name), config.game.setup, config.source)
        except ValueError:
            options = {}  # build_appliance read it already: it cannot fail here but for a race with an edit
        if appliance.app.game.name != config.game.name:
            options = {}  # a game of another kind resumed (begun from the page): its cars are in its log
        try:
            web = WebService(game=appliance.app.game.name, store_path=appliance.store.path, host=config.web.host,
                             port=config.web.port, check=check, faces_path=config.vision.faces,
                             config_source=config.config_option(),
                             calibration_path=config.vision.calibration, new_game=new_game).start()
        except OSError as exc:
            # the table plays on without the page (a deploy audit: the port taken, or [web] host an address the
            # network has not brought up yet, exited 2, which systemd does not restart: no game at all)
            log(f"warning: the web page is off ({config.source}: [web] {config.web.host}:{config.web.port}: {exc}); "
                "the table plays on without it: free the port or correct [web] host/port, then restart")
            why = exc.strerror or str(exc)  # ("[Errno 98] " is for the journal: a footer has no room for it)
            appliance.app.notify("web_off", f"WEB PAGE OFF: {config.web.host}:{config.web.port}: {why}; the game "
                                 "goes on", None)
            if started is not None:
                started(None)
            try:
                appliance.app.run(stop=stop)
            except KeyboardInterrupt:
                pass
            return 0
        def code_elsewhere() -> str | None:
            """The pairing code on a screen whose player is not at the table, when no one at the table has a
            working screen (an audit: a game begun from the phone with players who have no [[screens]], resumed
            after a restart: the pair page asked for the code on player 1's screen, which no screen showed, and
            the phones paired before were locked out).  Returns the screen's player, or None."""
            from device.dashboards import pages as screen_pages
            from device.displays.bank import working

            shown = working(appliance.bank.status())
            at_table = {str(getattr(v, "player", "")) for v in appliance.app.match.views()}
            if not shown or any(p in at_table for p in shown):
                return None
            p = shown[0]
            said = f"web code {web.code}: type it on the phone's pairing page ({p} is not at this table)"
            page = screen_pages.TextPage("PHONE CODE", tuple(screen_pages.wrap(said)), 1, 1)
            appliance.bank.show(p, screen_pages.render_text(page))
            return p

        def code_restore(player: str) -> None:
            """The screen's own page again once a phone has paired (the code stood on it for good)."""
            from device.cli_device import not_at_table_page
            from device.dashboards import pages as screen_pages

            players = sorted({str(getattr(v, "player", "")) for v in appliance.app.match.views()})
            appliance.bank.show(player, screen_pages.render_text(not_at_table_page(player, players, config.source)))

        web.code_elsewhere = code_elsewhere
        web.code_restore = code_restore
        web.attach(appliance.app, appliance.game_id, options)
        first = web.first_player() or "player 1"
        shown = web.code_screen = code_elsewhere()
        where = f"{shown}'s screen (not at this table)" if shown else f"{first}'s screen"
        log(f"web page on {web.url} (listening on {config.web.host}:{web.server.port}; pair with the code "
            f"shown on {where})")
        from device.displays.bank import working

        if (shown or first) not in working(appliance.bank.status()):  # no screen shows it: the page could not be paired
            log(f"{first}'s screen does not show anything, so the pairing code is said here: {web.code}")
        if started is not None:
            started(web)
        try:
            while not stop():  # a game asked for on the page: this loop ends, and the new game's runs
                appliance.app.run(stop=lambda: stop() or bool(asked))
                while asked and not stop():
                    begin(*asked.pop(0))
        except KeyboardInterrupt:
            pass
        finally:
            web.stop()
    finally:
        appliance.close()
    return 0


def cmd_bench_web(args: argparse.Namespace) -> int:
    import json

    from device.web.bench import run_web_bench

    print(json.dumps(run_web_bench(presses=args.presses, browser=args.browser), indent=2, sort_keys=True))
    return 0
