"""Draw the program icon (``resources/icons/bidstudio-*.png`` and ``bidstudio.ico``) with Pillow.

A blue rounded square with the character 标 in white, drawn in Noto Sans CJK (the font must be
installed: ``fonts-noto-cjk``). The files are committed; run this only to change the icon::

    python build_spec/make_icon.py
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "resources" / "icons"
FONTS = ["/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc", "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"]
SIZES = (16, 24, 32, 48, 64, 128, 256)


def draw(size: int = 1024) -> Image.Image:
    """The icon at ``size`` pixels (drawn large, scaled down for the small sizes)."""
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    pen = ImageDraw.Draw(image)
    margin = size // 16
    pen.rounded_rectangle((margin, margin, size - margin, size - margin), radius=size // 6, fill=(28, 94, 168, 255))
    pen.rectangle((margin * 3, size - margin * 4, size - margin * 3, size - margin * 3), fill=(255, 196, 61, 255))
    font_path = next(p for p in FONTS if Path(p).is_file())
    font = ImageFont.truetype(font_path, int(size * 0.58), index=2)  # the SC face of the collection
    pen.text((size / 2, size * 0.45), "标", font=font, fill="white", anchor="mm")
    return image


def main() -> None:
    """Write the PNG sizes and the Windows .ico."""
    OUT.mkdir(parents=True, exist_ok=True)
    big = draw()
    for size in (48, 128, 256):
        big.resize((size, size), Image.LANCZOS).save(OUT / f"bidstudio-{size}.png", optimize=True)
    big.resize((256, 256), Image.LANCZOS).save(OUT / "bidstudio.ico", sizes=[(s, s) for s in SIZES])


if __name__ == "__main__":
    main()
