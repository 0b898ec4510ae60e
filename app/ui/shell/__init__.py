"""The application shell: start-up, the main window, its layout, settings and error sinks.

Entry points: ``main.run`` (QApplication, qasync loop, the window), ``main_window.MainWindow``
(built from the feature mixins), ``window_host.WindowHost`` (the window as other packages see
it), ``window_layout``, ``settings_dialog.SettingsDialog``, ``errors`` (three exception sinks,
one dialog), ``event_loop``, ``translations``.

Imports: everything in ``app.ui``; nothing imports ``main_window`` but ``main`` and the session.
"""
