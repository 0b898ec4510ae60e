#!/bin/sh
# Install or update 标书工坊 BidStudio @VERSION@ for this user, from the unpacked tarball.
#
#   sh install.sh                     # into ~/.local (program in ~/.local/lib/bidstudio)
#   PREFIX=/opt/bidstudio sh install.sh   # elsewhere (as root for a system-wide install)
#
# The same script comes with the model component (bidstudio-model-*.tar.gz): run there, it puts
# model/ into the installed program's folder. Settings, recovery files and the library live in
# the user's own folders (~/.config/BidStudio, ~/.local/share/BidStudio, ~/.cache/BidStudio) and
# are never touched: installing a newer version over an older one keeps them.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
PREFIX=${PREFIX:-$HOME/.local}
APPDIR="$PREFIX/lib/bidstudio"

if [ -d "$HERE/_internal" ]; then
    NEW="$APPDIR.new.$$"
    rm -rf "$NEW"
    mkdir -p "$NEW"
    cp -a "$HERE/." "$NEW/"
    # the model component installed earlier stays unless this package brings its own
    if [ -d "$APPDIR/model" ] && [ ! -d "$NEW/model" ]; then
        mv "$APPDIR/model" "$NEW/model"
    fi
    rm -rf "$APPDIR.old"
    if [ -d "$APPDIR" ]; then mv "$APPDIR" "$APPDIR.old"; fi
    mv "$NEW" "$APPDIR"
    rm -rf "$APPDIR.old"
    mkdir -p "$PREFIX/bin" "$PREFIX/share/applications" "$PREFIX/share/icons/hicolor/256x256/apps"
    ln -sf "$APPDIR/bidstudio" "$PREFIX/bin/bidstudio"
    cp "$APPDIR/share/bidstudio-256.png" "$PREFIX/share/icons/hicolor/256x256/apps/bidstudio.png"
    sed -e "s|@APPDIR@|$APPDIR|g" -e "s|@ICON@|$PREFIX/share/icons/hicolor/256x256/apps/bidstudio.png|g" \
        "$APPDIR/share/bidstudio.desktop" > "$PREFIX/share/applications/bidstudio.desktop"
    command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$PREFIX/share/applications" || true
    echo "标书工坊 @VERSION@ 已安装到 $APPDIR（菜单：办公 → 标书工坊；命令：$PREFIX/bin/bidstudio）。"
elif [ -d "$HERE/model" ]; then
    if [ ! -x "$APPDIR/bidstudio" ]; then
        echo "请先安装标书工坊本体（在其解压目录中运行 sh install.sh），再安装内置本地模型。" >&2
        exit 1
    fi
    rm -rf "$APPDIR/model.new"
    cp -a "$HERE/model" "$APPDIR/model.new"
    rm -rf "$APPDIR/model"
    mv "$APPDIR/model.new" "$APPDIR/model"
    echo "内置本地模型已安装到 $APPDIR/model；在“模型设置”中选择“内置本地模型（无需联网）”。"
else
    echo "这个文件夹里既没有程序也没有模型组件：请在解压出的 bidstudio 文件夹中运行 install.sh。" >&2
    exit 1
fi
echo "您的设置、恢复文件和资料库保存在用户数据文件夹中，更新或卸载程序不会删除它们。"
