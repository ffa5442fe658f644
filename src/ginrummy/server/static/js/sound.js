// Optional sounds, made in the browser with WebAudio (no sound files): off until the player turns
// them on in the header; the choice is kept in this browser.
const KEY = "gr-sound";

// Each sound: notes as [frequency Hz, start s, length s, wave, volume], or a burst of noise.
const SOUNDS = {
  card: { noise: 0.05, filter: 2400, volume: 0.35 },
  turn: { notes: [[660, 0, 0.12, "sine", 0.18], [880, 0.11, 0.16, "sine", 0.16]] },
  knock: { notes: [[130, 0, 0.12, "triangle", 0.5], [120, 0.16, 0.14, "triangle", 0.5]] },
  gin: {
    notes: [
      [523.25, 0, 0.16, "triangle", 0.22],
      [659.25, 0.1, 0.16, "triangle", 0.22],
      [783.99, 0.2, 0.16, "triangle", 0.22],
      [1046.5, 0.3, 0.32, "triangle", 0.22],
    ],
  },
  reaction: { notes: [[990, 0, 0.08, "sine", 0.12], [1320, 0.07, 0.1, "sine", 0.1]] },
};

class Sounds {
  constructor() {
    this.context = null;
  }

  get enabled() {
    return localStorage.getItem(KEY) === "1";
  }

  set enabled(on) {
    localStorage.setItem(KEY, on ? "1" : "0");
    if (on) this.play("turn"); // a click on the switch lets the browser start audio
  }

  /** Play sound `name` when sounds are on (nothing at all otherwise: no audio context is made). */
  play(name) {
    const sound = SOUNDS[name];
    if (!sound || !this.enabled) return;
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return;
    try {
      this.context = this.context || new Context();
      const ctx = this.context;
      if (ctx.state === "suspended") ctx.resume();
      const now = ctx.currentTime + 0.01;
      if (sound.noise) this.noise(ctx, now, sound);
      for (const [frequency, start, length, wave, volume] of sound.notes || []) {
        const osc = ctx.createOscillator();
        const gain = ctx.createGain();
        osc.type = wave;
        osc.frequency.value = frequency;
        gain.gain.setValueAtTime(0.0001, now + start);
        gain.gain.exponentialRampToValueAtTime(volume, now + start + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
        osc.connect(gain).connect(ctx.destination);
        osc.start(now + start);
        osc.stop(now + start + length + 0.02);
      }
    } catch {
      // Audio refused (no device, a policy): the game goes on silently.
    }
  }

  /** A short filtered burst of noise: a card snapped onto the table. */
  noise(ctx, now, { noise, filter, volume }) {
    const buffer = ctx.createBuffer(1, Math.ceil(ctx.sampleRate * noise), ctx.sampleRate);
    const data = buffer.getChannelData(0);
    for (let i = 0; i < data.length; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / data.length) ** 2;
    const source = ctx.createBufferSource();
    source.buffer = buffer;
    const band = ctx.createBiquadFilter();
    band.type = "bandpass";
    band.frequency.value = filter;
    const gain = ctx.createGain();
    gain.gain.value = volume;
    source.connect(band).connect(gain).connect(ctx.destination);
    source.start(now);
  }
}

export const sounds = new Sounds();
