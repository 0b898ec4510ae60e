; 标书工坊 BidStudio — Windows installer (NSIS 3, Unicode).
;
; Build on Windows after the PyInstaller bundle (dist\bidstudio) and, optionally, the model
; component (dist\bidstudio-model, from build_spec\model_component.py):
;
;   makensis /DVERSION=0.1.0 build_spec\installer\windows\bidstudio.nsi
;
; build_spec/package.py --nsis runs the same with the version from app/__init__.py (also on
; Linux, where makensis compiles the script against the Linux bundle as a check of its paths).
;
; Per-user install (no administrator rights) into %LOCALAPPDATA%\Programs\BidStudio. Installing a
; newer version over an older one replaces the program files only: settings, recovery files and
; the library are in the user's own folders (%APPDATA%\BidStudio, %LOCALAPPDATA%\BidStudio,
; platformdirs), which neither the installer nor the uninstaller touches.

Unicode true
!include "MUI2.nsh"

!ifndef VERSION
  !define VERSION "0.1.0"
!endif
!ifndef DIST
  !define DIST "..\..\..\dist"
!endif
!ifndef OUTDIR
  !define OUTDIR "${DIST}"
!endif
!ifndef EXE
  !define EXE "bidstudio.exe"
!endif
!define APPKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\BidStudio"

Name "标书工坊 BidStudio ${VERSION}"
OutFile "${OUTDIR}\bidstudio-${VERSION}-windows-x64-setup.exe"
InstallDir "$LOCALAPPDATA\Programs\BidStudio"
InstallDirRegKey HKCU "${APPKEY}" "InstallLocation"
RequestExecutionLevel user
SetCompressor /SOLID lzma
VIProductVersion "${VERSION}.0"
VIAddVersionKey "ProductName" "BidStudio"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "LegalCopyright" "AGPL-3.0-or-later"
VIAddVersionKey "FileDescription" "标书工坊 BidStudio 安装程序"

!define MUI_ICON "..\..\..\resources\icons\bidstudio.ico"
!define MUI_UNICON "..\..\..\resources\icons\bidstudio.ico"
!define MUI_LICENSEPAGE_TEXT_TOP "本程序依据 GNU Affero 通用公共许可证第 3 版或更新版本（AGPL-3.0-or-later）发布；安装文件夹的 source 文件夹中附有完整源代码。"
!insertmacro MUI_PAGE_LICENSE "..\..\..\LICENSE"
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!define MUI_FINISHPAGE_RUN "$INSTDIR\${EXE}"
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "SimpChinese"

Section "标书工坊（必需）" SecApp
  SectionIn RO
  ; the old version's program files go first (a file the new version no longer has must not linger)
  RMDir /r "$INSTDIR\_internal"
  SetOutPath "$INSTDIR"
  File /r "${DIST}\bidstudio\*.*"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  CreateDirectory "$SMPROGRAMS\标书工坊"
  CreateShortCut "$SMPROGRAMS\标书工坊\标书工坊.lnk" "$INSTDIR\${EXE}"
  CreateShortCut "$SMPROGRAMS\标书工坊\卸载标书工坊.lnk" "$INSTDIR\uninstall.exe"
  CreateShortCut "$DESKTOP\标书工坊.lnk" "$INSTDIR\${EXE}"
  WriteRegStr HKCU "${APPKEY}" "DisplayName" "标书工坊 BidStudio"
  WriteRegStr HKCU "${APPKEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${APPKEY}" "Publisher" "BidStudio developers"
  WriteRegStr HKCU "${APPKEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${APPKEY}" "DisplayIcon" "$INSTDIR\${EXE}"
  WriteRegStr HKCU "${APPKEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegDWORD HKCU "${APPKEY}" "NoModify" 1
  WriteRegDWORD HKCU "${APPKEY}" "NoRepair" 1
SectionEnd

!if /FileExists "${DIST}\bidstudio-model\component.json"
Section /o "内置本地模型（llama.cpp + Gemma 3 270M，约 250 MB，离线可用）" SecModel
  RMDir /r "$INSTDIR\model"
  SetOutPath "$INSTDIR\model"
  File /r "${DIST}\bidstudio-model\*.*"
SectionEnd
!endif

Section "Uninstall"
  ; the program folder only: settings, recovery files and the library stay in the user's folders
  RMDir /r "$INSTDIR\_internal"
  RMDir /r "$INSTDIR\model"
  RMDir /r "$INSTDIR\source"
  RMDir /r "$INSTDIR\share"
  Delete "$INSTDIR\${EXE}"
  Delete "$INSTDIR\LICENSE"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"
  Delete "$SMPROGRAMS\标书工坊\标书工坊.lnk"
  Delete "$SMPROGRAMS\标书工坊\卸载标书工坊.lnk"
  RMDir "$SMPROGRAMS\标书工坊"
  Delete "$DESKTOP\标书工坊.lnk"
  DeleteRegKey HKCU "${APPKEY}"
SectionEnd
