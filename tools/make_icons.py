"""Draw the web app's icons (src/sternhalma/web/icons/): the star board with three
marbles, as in favicon.svg, in the PNG sizes an installed app needs (docs/browser.md).

Pure standard library: the shapes are tested per pixel (4×4 samples for smooth edges)
and written as PNG with zlib. Run it again after changing the drawing; the icons are
committed, so the app needs nothing at run time.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

ICONS = Path(__file__).resolve().parents[1] / "src" / "sternhalma" / "web" / "icons"

Colour = tuple[int, int, int]
BACKGROUND: Colour = (0xF5, 0xF1, 0xE8)
STAR: Colour = (0xC8, 0x9B, 0x3C)
EDGE: Colour = (0x33, 0x33, 0x33)
#: The marbles: (centre y in board units, colour), on the star's vertical axis.
MARBLES: tuple[tuple[float, Colour], ...] = (
    (-5.0, (0xD3, 0x2F, 0x2F)),
    (0.0, (0xFF, 0xFF, 0xFF)),
    (5.0, (0x1E, 0x63, 0xC6)),
)
MARBLE_RADIUS = 2.2
#: favicon.svg's star: twelve corners in a 20-unit box centred on 0.
STAR_POINTS = (
    (0, -9.5), (2.7, -4.7), (8.2, -4.7), (5.5, 0), (8.2, 4.7), (2.7, 4.7),
    (0, 9.5), (-2.7, 4.7), (-8.2, 4.7), (-5.5, 0), (-8.2, -4.7), (-2.7, -4.7),
)  # fmt: skip


def inside(x: float, y: float, polygon: tuple[tuple[float, float], ...]) -> bool:
    """Even-odd rule: whether (x, y) is inside ``polygon``."""
    result = False
    for (x1, y1), (x2, y2) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            result = not result
    return result


def colour_at(x: float, y: float) -> Colour:
    """The drawing's colour at board point (x, y)."""
    for centre, colour in MARBLES:
        distance = math.hypot(x, y - centre)
        if distance <= MARBLE_RADIUS:
            return (
                EDGE if colour == (0xFF, 0xFF, 0xFF) and distance > MARBLE_RADIUS - 0.25 else colour
            )
    return STAR if inside(x, y, STAR_POINTS) else BACKGROUND


def draw(size: int, board: float) -> bytes:
    """RGB rows of a ``size``-pixel icon showing ``board`` units across (more: a margin,
    as a maskable icon needs its drawing inside the middle 80 %)."""
    samples = 4
    rows = []
    for py in range(size):
        row = bytearray([0])  # PNG filter: none
        for px in range(size):
            total = [0, 0, 0]
            for sy in range(samples):
                for sx in range(samples):
                    x = ((px + (sx + 0.5) / samples) / size - 0.5) * board
                    y = ((py + (sy + 0.5) / samples) / size - 0.5) * board
                    for i, value in enumerate(colour_at(x, y)):
                        total[i] += value
            row.extend(round(value / samples**2) for value in total)
        rows.append(bytes(row))
    return b"".join(rows)


def png(size: int, pixels: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(pixels, 9))
        + chunk(b"IEND", b"")
    )


#: File name, pixels, board units across.
ICON_FILES = (
    ("icon-192.png", 192, 21.0),
    ("icon-512.png", 512, 21.0),
    ("maskable-512.png", 512, 26.0),
)


def main() -> None:
    ICONS.mkdir(parents=True, exist_ok=True)
    for name, size, board in ICON_FILES:
        (ICONS / name).write_bytes(png(size, draw(size, board)))
        print(f"{name}: {size}×{size}")


if __name__ == "__main__":
    main()
