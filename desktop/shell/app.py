"""The desktop's composition root: settings, core services, stores and dialogs are built here and passed in.

Start-up order keeps the window fast: the window shows first; the embedded PostgreSQL, the memory store,
the embedding model (torch) and the Ollama check start on worker threads after it appears.
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass, field, replace
from typing import Any

from core.composition import Services
from core.config import Settings, config_dir, data_dir
from core.errors import ConfigError
from core.history import QuestionHistory
from resources import icon_files, read_text

__all__ = ["AppContext", "app_icon", "apply_theme", "run"]

logger = logging.getLogger(__name__)


@dataclass
class AppContext:
    """Everything the window needs, built once; tests build one with fakes."""

    settings: Settings
    services: Services
    history: QuestionHistory
    connections: Any = None  # core.databases.connections._saved.ConnectionStore
    secrets: Any = None  # core.databases.connections._secrets.SecretStore
    windows: list[Any] = field(default_factory=list)

    @classmethod
    def create(cls, settings: Settings | None = None, **services_kwargs: Any) -> AppContext:
        settings = settings or Settings.load().with_env()
        from core.databases import ConnectionStore
        from core.databases import open_secret_store

        return cls(
            settings=settings,
            services=Services(settings, **services_kwargs),
            history=QuestionHistory(data_dir() / "history"),
            connections=ConnectionStore(config_dir() / "connections.json"),
            secrets=open_secret_store(),
        )

    def admin(self) -> Any:
        from core.llm import OllamaAdmin

        return OllamaAdmin(self.settings.ollama_host)

    def ollama_status(self) -> Any:
        return self.admin().status()

    def save_settings(self, settings: Settings) -> None:
        """Keep ``settings`` for this session and write them; a host that came from ``OLLAMA_HOST`` (unchanged in
        the dialog) is not written: the file keeps its own."""
        self.settings = settings
        try:
            saved = Settings.load()
            keep = {k: getattr(settings, k) for k in (
                "model", "ollama_host", "row_cap", "statement_timeout_s", "memory_store", "theme", "font_size",
                "users", "last_user", "last_connection", "sharing_enabled", "insight_store", "insight_url",
                "insight_ttl_days", "agent_id")}
            if os.environ.get("OLLAMA_HOST") and settings.ollama_host == saved.with_env().ollama_host:
                keep["ollama_host"] = saved.ollama_host
            replace(saved, **keep).save()
        except Exception:  # noqa: BLE001 - a settings file we cannot write must not stop the app
            logger.warning("settings not saved", exc_info=True)

    # -- dialogs (opened from the window's toolbar) ---------------------------------------------------

    def open_connections(self, window: Any) -> None:
        from desktop.connections.connection_dialog import ConnectionDialog

        dialog = ConnectionDialog(self.connections, self.secrets, parent=window)
        dialog.target_chosen.connect(lambda url, conn: self._switch_database(window, url, conn))
        dialog.open()

    def _switch_database(self, window: Any, url: str | None, conn: Any = None) -> None:
        """Connect ``window`` to ``url`` (None: the sample database); ``conn`` is what to remember (no password)."""
        window.start(url, connection=conn)

    def open_model_manager(self, window: Any) -> None:
        from desktop.models.model_manager import ModelManagerDialog

        dialog = ModelManagerDialog(self.admin(), current_model=self.settings.model, parent=window)
        dialog.model_chosen.connect(lambda model: self._use_model(window, model))
        dialog.open()

    def open_quality(self, window: Any) -> Any:
        """The quality dashboard: evaluation runs and feedback over time; a run can be started there. A dashboard
        that cannot be built (QtCharts missing, say) is an error shown to the person, not a crash (None)."""
        from desktop.toolkit.errors import show_error

        try:
            from desktop.dialogs.quality_view import QualityDialog

            dialog = QualityDialog(self.settings, parent=window, feedback=self._feedback_days)
        except Exception as exc:  # noqa: BLE001 - shown, with its hint, in the one place errors are shown
            show_error(window, exc, title="Quality")
            return None
        dialog.open()
        return dialog

    def _feedback_days(self) -> list[Any]:
        """Thumbs up/down per day from the feedback log, for the dashboard (none when there is no log)."""
        from core.evaluation import FeedbackDay

        try:
            from core.feedback import feedback_counts
        except ImportError:
            return []
        return [FeedbackDay(str(day), int(ups), int(downs)) for day, ups, downs in feedback_counts()]

    def _use_model(self, window: Any, model: str) -> None:
        self.save_settings(replace(self.settings, model=model))
        self._rebuild_services(window)
        window.set_model_label(model)

    def open_settings(self, window: Any) -> None:
        from PySide6.QtWidgets import QApplication

        from desktop.dialogs.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.settings, parent=window, show_shared=lambda: self.open_shared_insights(dialog))

        def accepted() -> None:
            new = dialog.result_settings()
            self.save_settings(new)
            apply_theme(QApplication.instance(), new)
            self._rebuild_services(window)
            window.set_model_label(new.model)

        dialog.accepted.connect(accepted)
        dialog.open()

    def open_shared_insights(self, parent: Any) -> Any:
        """"What I've shared…": this agent's records in the shared-insights store, with Delete."""
        from desktop.sharing.shared_insights_dialog import open_shared_insights

        return open_shared_insights(self.services, parent)

    def _rebuild_services(self, window: Any) -> None:
        old = self.services
        self.services = Services(self.settings, embedded=old._embedded, embedder=old._embedder)
        window.start(window.target)
        try:
            old.close()
        except Exception:  # noqa: BLE001
            logger.warning("closing old services failed", exc_info=True)


_DEFAULT_FONT: Any = None
_CUSTOM_PALETTE = False


def dark_palette() -> Any:
    """A dark Fusion palette for platforms that give none; text on its backgrounds is above 4.5:1 contrast."""
    from PySide6.QtGui import QColor, QPalette

    palette = QPalette()
    role, group = QPalette.ColorRole, QPalette.ColorGroup
    colours = {
        role.Window: "#2b2d30", role.WindowText: "#e8e8e8", role.Base: "#1e1f22", role.AlternateBase: "#26282b",
        role.ToolTipBase: "#3c3f41", role.ToolTipText: "#f0f0f0", role.Text: "#e8e8e8", role.Button: "#3c3f41",
        role.ButtonText: "#e8e8e8", role.BrightText: "#ff6b68", role.Link: "#78a9ff", role.Highlight: "#2f65ca",
        role.HighlightedText: "#ffffff", role.PlaceholderText: "#a0a0a0", role.Mid: "#4a4d50",
        role.Dark: "#1b1c1e", role.Light: "#505356", role.Shadow: "#000000",
    }
    for r, colour in colours.items():
        palette.setColor(r, QColor(colour))
    for r in (role.WindowText, role.Text, role.ButtonText):
        palette.setColor(group.Disabled, r, QColor("#8c8c8c"))
    return palette


def apply_theme(app: Any, settings: Settings) -> None:
    """Fusion style with the OS light/dark scheme (or the one chosen, with a real palette when the platform gives
    none), and the chosen font size (back to the default one when it is cleared, without a restart)."""
    global _DEFAULT_FONT
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QFont, QPalette

    old_text = app.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.Text)
    app.setStyle("Fusion")
    hints = app.styleHints()
    scheme = {"light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}.get(settings.theme, Qt.ColorScheme.Unknown)
    if hasattr(hints, "setColorScheme"):
        hints.setColorScheme(scheme)
    global _CUSTOM_PALETTE
    if settings.theme == "dark":
        app.setPalette(dark_palette())
        _CUSTOM_PALETTE = True
    elif settings.theme == "light" or _CUSTOM_PALETTE:  # back from our dark palette: the style's own again
        app.setPalette(app.style().standardPalette())
        _CUSTOM_PALETTE = settings.theme == "light"
    text = app.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.Text)
    if text != old_text:  # a live switch: icons drawn in the old text colour (black on dark grey) take the new one
        import qtawesome as qta

        from desktop.toolkit.icon_tint import retint_icons

        qta.reset_cache()  # icons made from now on: qtawesome draws them in the palette's text colour
        retint_icons(app, old_text, text, app.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
    if _DEFAULT_FONT is None:
        _DEFAULT_FONT = QFont(app.font())
    font = QFont(_DEFAULT_FONT)
    if settings.font_size:
        font.setPointSize(settings.font_size)
    app.setFont(font)
    from desktop.toolkit.widgets import muted_style

    sheet = read_text("styles/app.qss") + muted_style(app.palette())
    if app.styleSheet() == sheet:  # the same sheet again is ignored, and then widgets the style sheet polished
        app.setStyleSheet("")  # (dock titles) keep the old font: set it afresh so every widget is polished again
    app.setStyleSheet(sheet)


def app_icon() -> Any:
    """The Cairn icon in every packaged size (QIcon picks the right one for title bars, docks and taskbars)."""
    from PySide6.QtGui import QIcon, QPixmap

    icon = QIcon()
    for _size, data in icon_files():
        pixmap = QPixmap()
        if pixmap.loadFromData(data, "PNG"):
            icon.addPixmap(pixmap)
    return icon


def close_on_termination(app: Any) -> Any:
    """SIGTERM and SIGHUP (a logout, ``kill``, a service manager) close the windows as the close button does, so
    the app's own end runs: the running question stops, the embedded PostgreSQL is stopped by its exit handler.
    Python runs signal handlers only between bytecodes, so a timer wakes the interpreter four times a second while
    Qt's loop waits. Returns the timer (kept by the caller)."""
    import signal

    from PySide6.QtCore import QTimer

    def close_all(_signum: int, _frame: Any) -> None:
        QTimer.singleShot(0, app.closeAllWindows)
        QTimer.singleShot(0, app.quit)  # no window yet (the login): leave the loop anyway

    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), close_all)
    wake = QTimer(app)
    wake.timeout.connect(lambda: None)
    wake.start(250)
    return wake


def run(argv: list[str] | None = None) -> int:
    """Open the window: login first, then the main window on the last or embedded database."""
    from PySide6.QtWidgets import QApplication, QDialog

    from desktop.connections.password_prompt import restore_last_connection
    from desktop.dialogs.login import LoginDialog
    from desktop.shell.main_window import MainWindow

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    app = QApplication.instance() or QApplication(argv or sys.argv)
    app.setApplicationName("Cairn")
    app.setOrganizationName("Cairn")
    app.setWindowIcon(app_icon())
    from desktop.shell.window_geometry import DialogFitter

    app.installEventFilter(DialogFitter(app))  # every dialog fits its screen (14 pt on 1280×720 too)
    close_on_termination(app)
    try:
        context = AppContext.create()
    except ConfigError as exc:  # an unreadable settings.json must not keep the window from opening
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.warning(None, "Cairn settings", f"{exc}\n\n{exc.hint}\n\nCairn opens with the default settings; "
                            "saving settings keeps a copy of the old file as settings.json.bak.")
        context = AppContext.create(Settings().with_env())
    apply_theme(app, context.settings)
    login = LoginDialog(context.settings.users, context.settings.last_user)
    if login.exec() != QDialog.DialogCode.Accepted:
        return 0
    user = login.user()
    users = [user] + [u for u in context.settings.users if u != user]
    context.save_settings(replace(context.settings, users=users[:50], last_user=user))
    window = MainWindow(context, user)
    context.windows.append(window)
    window.show()
    window.activateWindow()
    window.chat.focus_input()  # typing goes to the question box from the first frame
    restore_last_connection(window, context.connections, context.secrets)  # the sample when that cannot be
    code = app.exec()
    context.services.close()
    return int(code)
