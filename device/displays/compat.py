"""luma.oled's monochrome drivers without ``Image.getdata`` (deprecated in Pillow 12, removed in Pillow 14).

luma.oled's ``ssd1306.display`` and ``sh1106.display`` walk ``image.getdata()`` pixel by pixel.  Our
screens send only changed bytes through :class:`device.displays.partial.PartialUpdater`, which packs
frames with numpy, but luma still calls its own ``display`` when a device is built (``__init__`` clears
the panel), on ``clear()`` and on ``cleanup()``.  :func:`getdata_free` gives a subclass of a luma device
whose ``display`` packs the frame with :func:`~device.displays.partial.pack_pages` and sends *the same
bytes in the same calls* as luma's (tests/device/test_displays.py compares them under the installed
Pillow, and runs the whole display path with ``getdata`` removed, as Pillow 14 will have it).

No fork of luma: the subclass only replaces ``display``; init sequences, contrast, rotation
(``preprocess``), ``persist`` and the serial interface stay luma's.
"""

from __future__ import annotations

import functools
from typing import Any

from PIL import Image

from device.displays.partial import pack_pages


def _ssd1306_display(self: Any, image: Image.Image) -> None:
    """SSD1306/SSD1309: one column/page window over the whole panel, then every page's bytes."""
    if image.mode != self.mode or image.size != self.size:
        raise ValueError(f"display takes a mode {self.mode!r} {self.size[0]}x{self.size[1]} image, "
                         f"got mode {image.mode!r} {image.size[0]}x{image.size[1]}")
    image = self.preprocess(image)
    self.command(self._const.COLUMNADDR, self._colstart, self._colend - 1, self._const.PAGEADDR, 0x00, self._pages - 1)
    pages = pack_pages(image.convert("1") if image.mode != "1" else image)
    self.data(pages.reshape(-1).tolist())


def _sh1106_display(self: Any, image: Image.Image) -> None:
    """SH1106: page by page (``0xB0|page``, the column offset, high column nibble 0), each page's bytes."""
    if image.mode != self.mode or image.size != self.size:
        raise ValueError(f"display takes a mode {self.mode!r} {self.size[0]}x{self.size[1]} image, "
                         f"got mode {image.mode!r} {image.size[0]}x{image.size[1]}")
    image = self.preprocess(image)
    pages = pack_pages(image.convert("1") if image.mode != "1" else image)
    for page in range(int(self._pages)):
        self.command(0xB0 + page, self._page_address_offset, 0x10)
        self.data(pages[page].tolist())


@functools.cache
def getdata_free(base: type) -> type:
    """A subclass of luma.oled's ``ssd1306``/``ssd1309``/``sh1106`` whose ``display`` does not call
    ``Image.getdata``; ``TypeError`` for another class."""
    import luma.oled.device as d

    if issubclass(base, d.sh1106):
        display = _sh1106_display
    elif issubclass(base, d.ssd1306):
        display = _ssd1306_display
    else:
        raise TypeError(f"no getdata-free display for {base.__name__}; Pitboard drives ssd1306, ssd1309 and sh1106")
    return type(base.__name__, (base,), {
        "display": display,
        "__module__": __name__,
        "__doc__": f"luma.oled's {base.__name__} with a display() that works on Pillow 14 (no Image.getdata).",
    })
