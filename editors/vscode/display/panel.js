// The "asmdbg display" panel's script (see panel.html). The extension posts it messages:
//   { type: 'frame', frame: { width, height, unitWidth, unitHeight, pixels } }
//       a frame as the adapter's asmdbgDisplay event carries it: width x height units, each
//       unitWidth x unitHeight screen pixels, `pixels` the units' red, green and blue bytes,
//       row-major, in base64;
//   { type: 'status', text, error }   a line for the status bar (the program ended, a key was
//       refused).
// It posts the extension { type: 'ready' } once it listens, and { type: 'key', key } for each
// key typed while it has the focus (`key` the character code the program reads).
'use strict';

(function panel() {
  const vscode = acquireVsCodeApi();
  const screen = document.getElementById('screen');
  const status = document.getElementById('status');
  const context = screen.getContext('2d');
  let hint = '';

  function setStatus(text, error) {
    status.textContent = text;
    status.classList.toggle('error', Boolean(error));
  }

  function decodeBase64(text) {
    const binary = atob(text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) {
      bytes[i] = binary.charCodeAt(i);
    }
    return bytes;
  }

  // Draws a frame at screen size: each unit a block of unitWidth x unitHeight pixels of its
  // colour, written pixel by pixel (no scaling filter is involved, so colours stay exact).
  function draw(frame) {
    const width = frame.width >>> 0;
    const height = frame.height >>> 0;
    const unitWidth = Math.max(1, frame.unitWidth >>> 0);
    const unitHeight = Math.max(1, frame.unitHeight >>> 0);
    let rgb;
    try {
      rgb = decodeBase64(frame.pixels || '');
    } catch (e) {
      setStatus(`A frame could not be read: ${e.message}`, true);
      return;
    }
    if (width === 0 || height === 0 || rgb.length !== width * height * 3) {
      setStatus(`A frame of ${width}x${height} units came with ${rgb.length} bytes of pixels `
        + `instead of ${width * height * 3}: not drawn`, true);
      return;
    }
    const screenWidth = width * unitWidth;
    const screenHeight = height * unitHeight;
    if (screen.width !== screenWidth || screen.height !== screenHeight) {
      screen.width = screenWidth;
      screen.height = screenHeight;
    }
    const image = context.createImageData(screenWidth, screenHeight);
    const out = image.data;
    for (let y = 0; y < screenHeight; y++) {
      const row = ((y / unitHeight) | 0) * width;
      let o = y * screenWidth * 4;
      for (let x = 0; x < screenWidth; x++) {
        const i = (row + ((x / unitWidth) | 0)) * 3;
        out[o] = rgb[i];
        out[o + 1] = rgb[i + 1];
        out[o + 2] = rgb[i + 2];
        out[o + 3] = 255;
        o += 4;
      }
    }
    context.putImageData(image, 0, 0);
    screen.hidden = false;
    const size = `${width}x${height} units of ${unitWidth}x${unitHeight} px`;
    if (hint !== size) {
      hint = size;
      setStatus(`${size}. Click here and type: the keys go to the program.`, false);
    }
  }

  // The character code a key press sends, as MARS's keyboard tool and the LC-3 keyboard
  // receive it; undefined for keys that type nothing (and for shortcuts, left to VS Code).
  function keyCode(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) {
      return undefined;
    }
    const named = { Enter: 10, Backspace: 8, Tab: 9, Escape: 27, Delete: 127 };
    if (Object.prototype.hasOwnProperty.call(named, event.key)) {
      return named[event.key];
    }
    if (event.key.length === 1) {
      const code = event.key.charCodeAt(0);
      return code <= 0xff ? code : undefined;
    }
    return undefined;
  }

  window.addEventListener('keydown', (event) => {
    const key = keyCode(event);
    if (key === undefined) {
      return;
    }
    event.preventDefault();
    vscode.postMessage({ type: 'key', key });
  });

  // A click anywhere gives the panel the keyboard.
  document.body.addEventListener('mousedown', () => document.body.focus());

  window.addEventListener('message', (event) => {
    const message = event.data;
    if (!message || typeof message !== 'object') {
      return;
    }
    if (message.type === 'frame' && message.frame) {
      draw(message.frame);
    } else if (message.type === 'status') {
      setStatus(String(message.text), message.error);
      hint = '';
    }
  });

  document.body.focus();
  vscode.postMessage({ type: 'ready' });
}());
