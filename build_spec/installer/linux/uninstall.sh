#!/bin/sh
# Remove 标书工坊 BidStudio (program, model component, menu entry). The user's settings, recovery
# files and library stay where they are (~/.config/BidStudio, ~/.local/share/BidStudio).
set -eu
PREFIX=${PREFIX:-$HOME/.local}
rm -rf "$PREFIX/lib/bidstudio"
rm -f "$PREFIX/bin/bidstudio" "$PREFIX/share/applications/bidstudio.desktop" \
      "$PREFIX/share/icons/hicolor/256x256/apps/bidstudio.png"
echo "标书工坊已卸载。您的设置、恢复文件和资料库仍保留在用户数据文件夹中，需要时可手动删除。"
