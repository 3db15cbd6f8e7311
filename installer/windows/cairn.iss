; Inno Setup script for Cairn on Windows (NOT built or tested on Cairn's Linux build machines: it needs
; Windows, a Windows PyInstaller build in dist\cairn and Inno Setup 6.)
;
;   python installer\windows\make_ico.py                       (writes installer\windows\cairn.ico)
;   iscc /DAppVersion=0.1.0 installer\windows\cairn.iss        (writes dist\Cairn-0.1.0-setup.exe)
;
; Installs dist\cairn to {autopf}\Cairn (Program Files for everyone, or the user's own Programs folder when
; installed without admin rights), with a Start-menu entry. Cairn never writes to its install folder at run
; time: settings, memories, the embedded PostgreSQL's data and history live in %LOCALAPPDATA%\cairn
; (platformdirs), so the folder keeps Program Files' read-only permissions, and uninstalling
; or upgrading leaves every user's data where it is.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define AppName "Cairn"
#define SourceDir "..\..\dist\cairn"

[Setup]
; A fixed AppId: an upgrade replaces the installed version in place instead of installing beside it.
AppId={{6F1C2B8E-3A57-4C1D-9E2F-CA1124B0D7E3}
AppName={#AppName}
AppVersion={#AppVersion}
AppVerName={#AppName} {#AppVersion}
AppPublisher=Cairn developers
DefaultDirName={autopf}\{#AppName}
DefaultGroupName={#AppName}
DisableProgramGroupPage=yes
PrivilegesRequired=admin
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=Cairn-{#AppVersion}-setup
SetupIconFile=cairn.ico
UninstallDisplayIcon={app}\cairn.exe
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
CloseApplications=yes

[Files]
; The whole onedir bundle; the folder inherits Program Files' permissions (no [Dirs] Permissions entry:
; users get read and execute only).
Source: "{#SourceDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs
Source: "cairn.ico"; DestDir: "{app}"; Flags: ignoreversion

[Icons]
Name: "{autoprograms}\{#AppName}"; Filename: "{app}\cairn.exe"; IconFilename: "{app}\cairn.ico"; Comment: "Ask your databases questions in plain English"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\cairn.exe"; IconFilename: "{app}\cairn.ico"; Tasks: desktopicon

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Run]
Filename: "{app}\cairn.exe"; Description: "{cm:LaunchProgram,{#AppName}}"; Flags: nowait postinstall skipifsilent

; [UninstallDelete] is deliberately empty: a user's data lives outside {app} and stays on uninstall.
