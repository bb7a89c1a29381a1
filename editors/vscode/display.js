// The "asmdbg display" panel: a webview that shows the screen of a program with a display
// (MARS's Bitmap Display, PennSim's video) and sends it the keys typed there.
//
// `asmdbg dap` sends an `asmdbgDisplay` custom event with the first frame right after a launch
// whose program has a display, then one whenever the frame the IDE has is out of date (after
// stops, stepping back included, and about 30 a second while the program runs). The first
// event opens the panel beside the editor; keys typed in it go back as `asmdbgKey` custom
// requests. The page itself is display/panel.html and display/panel.js, which also load outside
// VS Code (the headless browser test).
'use strict';

const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

const DEBUG_TYPE = 'asmdbg';
const DISPLAY_EVENT = 'asmdbgDisplay';
const KEY_REQUEST = 'asmdbgKey';
const FRAME_REQUEST = 'asmdbgFrame';
const VIEW_TYPE = 'asmdbg.display';
const SHOW_COMMAND = 'asmdbg.showDisplay';
const PAGE_DIR = path.join(__dirname, 'display');

// The page with a Content Security Policy that allows only its own script (by nonce) and
// inline styles, and its script at the URI the webview can load.
function panelHtml(vscode, webview) {
  const page = fs.readFileSync(path.join(PAGE_DIR, 'panel.html'), 'utf8');
  const script = webview.asWebviewUri(vscode.Uri.file(path.join(PAGE_DIR, 'panel.js')));
  const nonce = crypto.randomBytes(16).toString('base64');
  const csp = '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
    + `style-src ${webview.cspSource} 'unsafe-inline'; script-src 'nonce-${nonce}';">`;
  return page
    .replace('<!-- asmdbg:csp -->', csp)
    .replace('<script src="panel.js">', `<script nonce="${nonce}" src="${script}">`);
}

// One panel and the debug session whose display it shows.
class DisplayView {
  constructor(displays, session) {
    this.displays = displays;
    this.session = session;
    this.frame = undefined;
    this.panel = undefined;
    this.ended = false;
    // The user closed the panel: frames no longer reopen it (the command does).
    this.closed = false;
  }

  post(message) {
    if (this.panel) {
      this.panel.webview.postMessage(message);
    }
  }

  showFrame(frame) {
    this.frame = frame;
    this.post({ type: 'frame', frame });
  }

  // Opens the panel (or reuses `panel`, one a session that ended left) beside the editor,
  // without taking the focus from it.
  open(panel) {
    const vscode = this.displays.vscode;
    this.closed = false;
    const title = `asmdbg display: ${this.session.name}`;
    if (panel) {
      this.panel = panel;
      panel.title = title;
    } else {
      this.panel = vscode.window.createWebviewPanel(
        VIEW_TYPE,
        title,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        {
          enableScripts: true,
          // The page keeps its canvas while hidden; frames that come meanwhile are drawn.
          retainContextWhenHidden: true,
          localResourceRoots: [vscode.Uri.file(PAGE_DIR)],
        },
      );
      this.panel.webview.html = panelHtml(vscode, this.panel.webview);
    }
    const owned = this.panel;
    this.subscriptions = [
      owned.webview.onDidReceiveMessage((message) => this.onMessage(message)),
      // Shown again: the latest frame, in case the page was recreated meanwhile.
      owned.onDidChangeViewState(() => {
        if (owned.visible && this.frame) {
          this.post({ type: 'frame', frame: this.frame });
        }
      }),
      owned.onDidDispose(() => {
        this.release();
        this.closed = true;
        this.displays.forget(this);
      }),
    ];
    if (this.frame) {
      this.post({ type: 'frame', frame: this.frame });
    }
  }

  // Lets go of the panel (it stays open).
  release() {
    for (const subscription of this.subscriptions || []) {
      subscription.dispose();
    }
    this.subscriptions = [];
    const panel = this.panel;
    this.panel = undefined;
    return panel;
  }

  onMessage(message) {
    if (!message || typeof message !== 'object') {
      return;
    }
    if (message.type === 'ready') {
      // The page loaded (or loaded again): what it should show.
      if (this.frame) {
        this.post({ type: 'frame', frame: this.frame });
      }
      if (this.ended) {
        this.post({ type: 'status', text: this.endedText() });
      }
    } else if (message.type === 'key') {
      if (this.ended) {
        this.post({ type: 'status', text: this.endedText(), error: true });
        return;
      }
      Promise.resolve()
        .then(() => this.session.customRequest(KEY_REQUEST, { key: message.key }))
        .then((body) => {
          // Keys typed while the program is in its recorded past are new input at the end
          // of the recording: the adapter gives them one by one there.
          const held = (body && body.held) || 0;
          if (held > 0) {
            this.post({ type: 'status', text: heldText(held) });
          }
        })
        .catch((error) => this.post({
          type: 'status', text: `The key was not sent: ${error.message || error}`, error: true,
        }));
    }
  }

  endedText() {
    return `The debug session "${this.session.name}" ended: this is its last frame.`;
  }

  end() {
    this.ended = true;
    this.post({ type: 'status', text: this.endedText() });
  }
}

/** The status line for keys that wait for the end of the recorded run. */
function heldText(held) {
  const keys = held === 1 ? 'A key typed in the past waits' : `${held} keys typed in the past wait`;
  return `${keys} for the end of the recording, where the program gets them one by one.`;
}

class Displays {
  constructor(vscode) {
    this.vscode = vscode;
    // Session id -> the view of a session that is running.
    this.views = new Map();
    // Panels whose session ended, reused by the next session with a display.
    this.idle = [];
  }

  register(context) {
    const { debug, commands } = this.vscode;
    context.subscriptions.push(
      debug.onDidReceiveDebugSessionCustomEvent((event) => this.onEvent(event)),
      debug.onDidTerminateDebugSession((session) => this.onTerminated(session)),
      commands.registerCommand(SHOW_COMMAND, () => this.showActive()),
    );
  }

  view(session) {
    let view = this.views.get(session.id);
    if (!view) {
      view = new DisplayView(this, session);
      this.views.set(session.id, view);
    }
    return view;
  }

  open(view) {
    const reused = this.idle.pop();
    view.open(reused && reused.release());
  }

  onEvent(event) {
    if (event.session.type !== DEBUG_TYPE || event.event !== DISPLAY_EVENT || !event.body) {
      return;
    }
    const view = this.view(event.session);
    view.showFrame(event.body);
    if (!view.panel && !view.closed) {
      this.open(view);
    }
  }

  onTerminated(session) {
    const view = this.views.get(session.id);
    if (!view) {
      return;
    }
    this.views.delete(session.id);
    view.end();
    if (view.panel) {
      this.idle.push(view);
    }
  }

  forget(view) {
    this.idle = this.idle.filter((v) => v !== view);
  }

  // The command "asmdbg: Show Display": the panel of the active session, opened again after
  // it was closed, with the frame the program shows now.
  async showActive() {
    const { vscode } = this;
    const session = vscode.debug.activeDebugSession;
    if (!session || session.type !== DEBUG_TYPE) {
      vscode.window.showErrorMessage('asmdbg: no asmdbg debug session is active.');
      return;
    }
    let frame;
    try {
      frame = await session.customRequest(FRAME_REQUEST, {});
    } catch (error) {
      vscode.window.showErrorMessage(`asmdbg: ${error.message || error}`);
      return;
    }
    const view = this.view(session);
    view.showFrame(frame);
    if (view.panel) {
      view.panel.reveal(undefined, true);
    } else {
      this.open(view);
    }
  }
}

module.exports = {
  Displays, panelHtml, DISPLAY_EVENT, KEY_REQUEST, FRAME_REQUEST, SHOW_COMMAND, VIEW_TYPE,
};
