"""``device.safe_files.read_image``: what an owner is told about an image file that cannot be used."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from device.safe_files import FileProblem, read_image


def _jpeg(path: Path) -> bytes:
    img = np.zeros((480, 640, 3), np.uint8)
    cv2.circle(img, (320, 240), 100, (40, 200, 220), -1)
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    return bytes(buf)


def test_a_whole_jpeg_is_read(tmp_path: Path) -> None:
    p = tmp_path / "roll.jpg"
    p.write_bytes(_jpeg(p))
    assert read_image(p).shape == (480, 640, 3)


def test_a_jpeg_cut_short_is_told_as_damaged_not_as_no_image(tmp_path: Path) -> None:
    """A photo copied before it was whole has a JPEG header: "not an image (PNG or JPEG expected)" sent
    the owner looking for a format problem."""
    p = tmp_path / "roll.jpg"
    whole = _jpeg(p)
    p.write_bytes(whole[:len(whole) // 2])  # libjpeg decodes it, the missing half grey, and says nothing
    with pytest.raises(FileProblem) as e:
        read_image(p)
    said = str(e.value)
    assert str(p) in said and "640 x 480" in said and "damaged or cut short" in said and "again" in said


def test_an_empty_file_is_told_as_empty(tmp_path: Path) -> None:
    p = tmp_path / "roll.jpg"
    p.write_bytes(b"")
    with pytest.raises(FileProblem, match=r"roll\.jpg is empty \(0 bytes\)"):
        read_image(p)


def test_a_text_file_is_not_an_image(tmp_path: Path) -> None:
    p = tmp_path / "notes.jpg"
    p.write_text("my notes\n", encoding="utf-8")
    with pytest.raises(FileProblem, match="not an image Pitboard can read"):
        read_image(p)


def test_a_gif_is_refused_in_our_words_only_and_the_words_name_what_is_read(tmp_path: Path, capfd) -> None:
    """Seen: OpenCV's "[ERROR:0@0.235] global loadsave.cpp ... Assertion failed" came before the message,
    which said "PNG or JPEG expected" while BMP, TIFF and WebP are read."""
    p = tmp_path / "fake.png"
    p.write_bytes(b"GIF89a\x01\x00\x01\x00\x00\x00\x00;")
    with pytest.raises(FileProblem, match=r"a PNG, JPEG, BMP, TIFF or WebP picture is"):
        read_image(p)
    assert "ERROR" not in capfd.readouterr().err
    for ext in (".bmp", ".tiff", ".webp"):
        cv2.imwrite(str(tmp_path / f"x{ext}"), np.full((20, 30, 3), 90, np.uint8))
        assert read_image(tmp_path / f"x{ext}").shape == (20, 30, 3)


def test_a_jpeg_with_a_thumbnail_and_a_trailer_is_whole(tmp_path: Path) -> None:
    """A phone's photo: an EXIF thumbnail (a whole JPEG of its own) inside the header, and bytes after the
    end of the picture.  Neither makes it look cut short."""
    from io import BytesIO

    from PIL import Image

    picture = Image.new("RGB", (640, 480), (200, 180, 40))
    thumb = BytesIO()
    picture.resize((160, 120)).save(thumb, "JPEG")
    exif = Image.Exif()
    buf = BytesIO()
    picture.save(buf, "JPEG", exif=exif.tobytes() + b"\xff\xd8\xff\xda" + thumb.getvalue()[:200])
    p = tmp_path / "phone.jpg"
    p.write_bytes(buf.getvalue() + b"SEFT\xff\xda\x00\x10trailer bytes")
    assert read_image(p).shape == (480, 640, 3)


@pytest.mark.parametrize("keep", [0.1, 0.5, 0.9, 0.99])
def test_every_cut_of_a_jpeg_is_refused(tmp_path: Path, keep: float) -> None:
    whole = _jpeg(tmp_path / "x.jpg")
    p = tmp_path / "roll.jpg"
    p.write_bytes(whole[:int(len(whole) * keep)])
    with pytest.raises(FileProblem, match="damaged or cut short"):
        read_image(p)


@pytest.mark.parametrize("argv", [
    ["calibrate", "{d}/frame.png"],
    ["dice", "read", "{d}/frame.png"],
    ["check", "--config", "{d}/pitboard.toml"],
    ["play", "gaslands", "--setup", "{d}/setup.toml", "--db", "{tmp}/g.sqlite"],
    ["play", "gaslands", "--db", "{d}/g.sqlite"],  # (an audit: these two raised out of Store)
    ["log", "list", "--db", "{d}/g.sqlite"],
])
def test_a_file_in_a_folder_closed_to_the_user_is_told_not_a_traceback(tmp_path: Path, monkeypatch, capsys,
                                                                        argv: list[str]) -> None:
    """`sudo -u pitboard pitboard calibrate ~/frame.png` (the deploy README's way): a home folder is 0700 on
    Bookworm, and Python's Path.exists raises PermissionError there (it only says False for a missing file):
    a traceback.  Root here passes every permission, so the refusal is made by a stand-in for the kernel."""
    from device.cli import main

    closed = tmp_path / "home"
    real = Path.stat

    def stat(self: Path, *a: object, **k: object) -> object:
        if str(self).startswith(str(closed)):
            raise PermissionError(13, "Permission denied", str(self))
        return real(self, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "stat", stat)
    args = [a.format(d=closed, tmp=tmp_path) for a in argv]
    try:
        code = main(args)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    assert f"{closed}/" in err and "cannot be reached (Permission denied" in err
    assert "give the user running Pitboard access to it" in err
    assert not (tmp_path / "g.sqlite").exists()


def test_images_are_read_with_opencv_4_as_the_pi_installs_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capfd: pytest.CaptureFixture[str]) -> None:
    """The emulated Pi (deploy/pi-emulated; its lock file pins opencv 4.11) failed every image read with
    "module 'cv2.utils' has no attribute 'logging'": OpenCV 4 has cv2.getLogLevel/setLogLevel only.  Here
    OpenCV 5's module is taken away and OpenCV 4's functions put in its place."""
    levels: list[int] = []
    if hasattr(cv2, "utils") and hasattr(cv2.utils, "logging"):
        monkeypatch.delattr(cv2.utils, "logging")
    state = {"level": 3}
    monkeypatch.setattr(cv2, "getLogLevel", lambda: state["level"], raising=False)
    monkeypatch.setattr(cv2, "setLogLevel", lambda v: (levels.append(v), state.update(level=v)), raising=False)
    p = tmp_path / "roll.jpg"
    p.write_bytes(_jpeg(p))
    assert read_image(p).shape == (480, 640, 3)
    assert levels == [0, 3]  # silent while decoding, then as it was
    bad = tmp_path / "notes.png"
    bad.write_bytes(b"\x89PNG not really" * 8)
    with pytest.raises(FileProblem, match="is not an image Pitboard can read"):
        read_image(bad)


def _png_with_alpha(path: Path, alpha: np.ndarray) -> None:
    bgr = np.zeros((60, 80, 3), np.uint8)
    cv2.circle(bgr, (40, 30), 20, (255, 255, 255), -1)  # a white disc on black colour channels
    assert cv2.imwrite(str(path), np.dstack([bgr, alpha]))


def test_a_fully_transparent_png_is_refused_not_read_from_its_hidden_colours(tmp_path: Path) -> None:
    """The audit: a PNG with every pixel transparent was read from the colour channels under the alpha
    (what the program that saved it left there) and gave a die showing 1."""
    p = tmp_path / "clear.png"
    _png_with_alpha(p, np.zeros((60, 80), np.uint8))
    with pytest.raises(FileProblem) as e:
        read_image(p)
    assert str(p) in str(e.value) and "fully transparent" in str(e.value) and "without transparency" in str(e.value)


def test_the_transparent_part_of_a_png_is_seen_as_grey(tmp_path: Path) -> None:
    alpha = np.zeros((60, 80), np.uint8)
    alpha[:, :40] = 255  # the left half opaque, the right half transparent
    p = tmp_path / "half.png"
    _png_with_alpha(p, alpha)
    img = read_image(p)
    assert img.shape == (60, 80, 3)
    assert tuple(img[30, 30]) == (255, 255, 255) and tuple(img[5, 5]) == (0, 0, 0)  # opaque: as saved
    assert tuple(img[30, 50]) == (128, 128, 128) and tuple(img[5, 75]) == (128, 128, 128)  # transparent: grey


def test_an_opaque_png_is_read_as_saved(tmp_path: Path) -> None:
    p = tmp_path / "opaque.png"
    _png_with_alpha(p, np.full((60, 80), 255, np.uint8))
    img = read_image(p)
    assert tuple(img[30, 40]) == (255, 255, 255) and tuple(img[5, 5]) == (0, 0, 0)


@pytest.mark.parametrize("orientation", [3, 6, 8])
def test_transparency_is_turned_with_the_picture_by_its_exif_orientation(tmp_path: Path, orientation: int) -> None:
    """The review: OpenCV turns the colours by the EXIF orientation but not the alpha it decodes apart: turned
    180 degrees, the visible half came out grey and the hidden colours showed; turned 90, the alpha was dropped."""
    from PIL import Image

    bgr = np.zeros((60, 80, 3), np.uint8)
    bgr[:, :40] = (0, 0, 255)  # the left half red and opaque
    bgr[:, 40:] = (0, 255, 255)  # the right half yellow, under a transparent alpha
    alpha = np.zeros((60, 80), np.uint8)
    alpha[:, :40] = 255
    exif = Image.Exif()
    exif[0x0112] = orientation
    p = tmp_path / f"turned{orientation}.png"
    Image.fromarray(np.dstack([bgr[:, :, ::-1], alpha]), "RGBA").save(p, exif=exif.tobytes())
    colours = cv2.imread(str(p), cv2.IMREAD_COLOR)  # as OpenCV turns it (or not, if it reads no EXIF here)
    img = read_image(p)
    assert img.shape == colours.shape
    red = (colours == (0, 0, 255)).all(axis=2)
    assert red.any() and (img[red] == (0, 0, 255)).all()  # the opaque half, wherever the turn put it
    assert (img[~red] == (128, 128, 128)).all()  # the transparent half is grey, never the hidden yellow


def test_a_palette_png_with_its_transparency_after_long_text_is_seen(tmp_path: Path) -> None:
    """The review: a palette PNG whose tRNS chunk came after 6 KB of XMP text was read from its hidden colours
    (the header was looked at only in its first 4 KB)."""
    from PIL import Image, PngImagePlugin

    im = Image.new("P", (40, 30), 1)
    im.putpalette([0, 0, 0, 0, 255, 0] + [0] * 762)  # colour 1 green
    info = PngImagePlugin.PngInfo()
    info.add_itxt("XML:com.adobe.xmp", "x" * 6000)
    p = tmp_path / "clear_palette.png"
    im.save(p, transparency=1, pnginfo=info)
    assert p.read_bytes().index(b"tRNS") > 4096
    with pytest.raises(FileProblem, match="fully transparent"):
        read_image(p)


def test_the_png_chunk_walk_stops_at_a_bound() -> None:
    """A file of a million empty chunks before its picture is not walked to its end, chunk by chunk in Python
    (a real PNG has a handful): the walk gives up at 10,000, and a tRNS beyond them is not looked for."""
    from device.safe_files import _png_trns

    empty = b"\x00\x00\x00\x00tEXt\x00\x00\x00\x00"
    trns = b"\x00\x00\x00\x01tRNS\x00\x00\x00\x00\x00"
    head = b"\x89PNG\r\n\x1a\n"
    assert _png_trns(np.frombuffer(head + empty * 10 + trns, np.uint8)) == b"\x00"
    assert _png_trns(np.frombuffer(head + empty * 20_000 + trns, np.uint8)) is None


def test_a_picture_of_one_colour_is_turned_by_its_exif_word_not_by_its_colours(tmp_path: Path) -> None:
    """The review: with colours the same every way (one colour), the first turn whose colours matched was the
    unturned one, so a picture stored turned 180 degrees had its transparent half on the wrong side."""
    from PIL import Image

    probe = tmp_path / "probe.png"
    exif = Image.Exif()
    exif[0x0112] = 3
    halves = np.zeros((20, 20, 3), np.uint8)
    halves[:, 10:] = 255
    Image.fromarray(halves).save(probe, exif=exif.tobytes())
    if cv2.imread(str(probe))[0, 0, 0] == 0:
        pytest.skip("this OpenCV does not turn PNGs by their EXIF orientation: nothing to turn the alpha by")
    alpha = np.zeros((60, 80), np.uint8)
    alpha[:, :40] = 255  # stored: the left half opaque
    p = tmp_path / "one_colour.png"
    Image.fromarray(np.dstack([np.full((60, 80, 3), (255, 0, 0), np.uint8), alpha]), "RGBA").save(
        p, exif=exif.tobytes())
    img = read_image(p)
    assert (img[:, 40:] == (0, 0, 255)).all()  # shown turned 180 degrees: the opaque (red) half on the right
    assert (img[:, :40] == (128, 128, 128)).all()


def test_a_turned_tiff_is_not_turned_twice(tmp_path: Path) -> None:
    """The review: OpenCV turns a TIFF's alpha by its orientation tag as it turns its colours, so turning it again
    by the EXIF word put the grey on the wrong side of a picture black all over (a glyph on a clear ground)."""
    from PIL import Image

    alpha = np.zeros((60, 80), np.uint8)
    alpha[:, :40] = 255
    exif = Image.Exif()
    exif[0x0112] = 3
    p = tmp_path / "glyph.tiff"
    Image.fromarray(np.dstack([np.zeros((60, 80, 3), np.uint8), alpha]), "RGBA").save(p, exif=exif.tobytes())
    shown_alpha = cv2.imread(str(p), cv2.IMREAD_UNCHANGED)[:, :, 3]  # as this OpenCV shows the alpha
    img = read_image(p)
    assert (img[shown_alpha == 0] == (128, 128, 128)).all() and (img[shown_alpha == 255] == (0, 0, 0)).all()


@pytest.mark.parametrize("key, depth", [(200, 8), (51400, 16)])
def test_the_grey_a_grey_png_makes_transparent_is_seen_as_grey(tmp_path: Path, key: int, depth: int) -> None:
    """The review: a grey PNG whose tRNS chunk names one grey transparent decodes to one channel in OpenCV, and
    the transparent part was read as its stored grey (200), not as the grey of any transparent part (128)."""
    from PIL import Image

    grey = np.full((30, 40), key, np.uint16 if depth == 16 else np.uint8)
    grey[:, :20] = 0  # the left half black and opaque, the right half the transparent grey
    p = tmp_path / "grey.png"
    Image.fromarray(grey).save(p, transparency=key)
    head = p.read_bytes()
    assert head[24] == depth and head[25] == 0 and b"tRNS" in head
    img = read_image(p)
    assert (img[:, :20] == 0).all() and (img[:, 20:] == 128).all()
    # a fully transparent one (every pixel the named grey) is refused like any other
    Image.fromarray(np.full((30, 40), key, grey.dtype)).save(p, transparency=key)
    with pytest.raises(FileProblem, match="fully transparent"):
        read_image(p)


def test_a_huge_image_is_refused_with_its_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An audit: a 30000 x 30000 PNG was "far larger; Pitboard reads images up to 67 megapixels": larger than
    what?  Its size is said (read from the header; the picture is never decoded), and Pillow's guard, a global
    other threads rely on, is never lifted for it (a review: lifted and put back, it raced between threads)."""
    import struct
    import zlib

    from PIL import Image

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    def png(side: int) -> Path:
        path = tmp_path / f"big{side}.png"
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0))
                         + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))
        return path

    guard = Image.MAX_IMAGE_PIXELS
    with pytest.raises(FileProblem, match=r"is 10000 x 10000 pixels \(100 megapixels\); Pitboard reads images up to 67"):
        read_image(png(10000))
    # past Pillow's own guard, which will not open the header: its pixel count
    with pytest.raises(FileProblem, match=r"is 900 megapixels; Pitboard reads images up to 67"):
        read_image(png(30000))
    assert Image.MAX_IMAGE_PIXELS == guard
    # Pillow's guard lowered by something else in the process (a review): a picture under Pitboard's own limit is
    # not refused for it, and a damaged one is not called "a 10000 x 1 image"
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 1000)
    with pytest.raises(FileProblem) as damaged:
        read_image(png(100))
    assert "megapixels" not in str(damaged.value) and "x 1 image" not in str(damaged.value), damaged.value


@pytest.mark.parametrize("ext", [".tif", ".gif", ".png", ".webp"])
def test_a_file_of_several_pictures_is_refused_and_one_picture_is_read(tmp_path: Path, ext: str) -> None:
    """A multi-page TIFF or an animation was read as its first picture without a word."""
    from PIL import Image

    a, b = (Image.fromarray(np.full((40, 60, 3), v, np.uint8)) for v in (30, 200))
    several, one = tmp_path / f"two{ext}", tmp_path / f"one{ext}"
    a.save(several, save_all=True, append_images=[b])
    a.save(one)
    with pytest.raises(FileProblem, match=r"holds several pictures \((2 pages|an animation)\); .* save the one you "
                       r"mean as a file of its own"):
        read_image(several)
    if ext == ".gif":  # one picture, but a GIF: read where OpenCV decodes GIFs (5), named as a GIF where not (4.11)
        try:
            assert read_image(one).shape == (40, 60, 3)
        except FileProblem as exc:
            assert "is a GIF, not an image Pitboard can read" in str(exc) and "damaged" not in str(exc), exc
        return
    assert read_image(one).shape == (40, 60, 3)


def test_a_phones_jpeg_with_a_second_picture_after_it_is_read(tmp_path: Path) -> None:
    """Not refused as "several pictures": a phone's JPEG (MPO) carries a depth map or a preview after its photo."""
    from PIL import Image

    a, b = (Image.fromarray(np.full((40, 60, 3), v, np.uint8)) for v in (30, 200))
    path = tmp_path / "phone.jpg"
    a.save(path, format="MPO", save_all=True, append_images=[b])
    with Image.open(path) as im:
        assert im.format == "MPO" and im.n_frames == 2
    assert read_image(path).shape == (40, 60, 3)


def test_an_iphone_heic_picture_is_named_as_one_with_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "IMG_0001.HEIC"
    path.write_bytes(b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + bytes(200))
    with pytest.raises(FileProblem, match=r"^image .*IMG_0001.HEIC is a HEIC/HEIF or AVIF picture .* export it as JPEG"):
        read_image(path)


def test_a_tiff_with_a_preview_page_is_one_picture(tmp_path: Path) -> None:
    """A review: some apps and scanners save a reduced-resolution preview as a TIFF's second page (NewSubfileType
    1): it is the same picture, not a second one."""
    from PIL import Image, TiffImagePlugin

    full, preview = Image.fromarray(np.full((40, 60, 3), 30, np.uint8)), Image.fromarray(np.full((8, 12, 3), 30, np.uint8))
    path = tmp_path / "scan.tif"
    info = TiffImagePlugin.ImageFileDirectory_v2()
    info[254] = 1
    preview.encoderinfo = {"tiffinfo": info}
    full.save(path, save_all=True, append_images=[preview])
    with Image.open(path) as im:
        assert im.n_frames == 2
        im.seek(1)
        assert im.tag_v2.get(254) == 1
    assert read_image(path).shape == (40, 60, 3)


def test_an_animated_gif_is_told_without_reading_every_frame(tmp_path: Path) -> None:
    from PIL import Image

    from device.safe_files import several_pictures

    frames = [Image.fromarray(np.full((8, 8, 3), v % 256, np.uint8)) for v in range(300)]
    path = tmp_path / "long.gif"
    frames[0].save(path, save_all=True, append_images=frames[1:])
    with Image.open(path) as im:
        assert im.n_frames == 300
    assert several_pictures(path) == "an animation"


def test_a_pattern_that_matched_no_file_is_said_so(tmp_path: Path) -> None:
    with pytest.raises(FileProblem, match=r"\*\.jpg does not exist \(if it was a pattern, it matched no file\)"):
        read_image(tmp_path / "*.jpg")
    with pytest.raises(FileProblem, match=r"x\.jpg does not exist \(if it was a pattern"):
        read_image(tmp_path / "*" / "x.jpg")


@pytest.mark.parametrize("channels", [1, 3])
def test_a_tiff_of_floating_point_samples_is_named_as_such(tmp_path: Path, channels: int) -> None:
    """An audit: a 32-bit float TIFF was "damaged or cut short ... take or copy it again" (grey) or "not an image
    Pitboard can read (a ... TIFF ... is)" (colour): neither is so, and copying it again changes nothing."""
    shape = (48, 64) if channels == 1 else (48, 64, 3)
    path = tmp_path / "float.tiff"
    assert cv2.imwrite(str(path), np.random.default_rng(1).random(shape).astype(np.float32))
    with pytest.raises(FileProblem, match=r"is a TIFF of 32-bit floating-point samples .* 8 or 16 bits a channel"):
        read_image(path)
