// The web console's entry: mounts the app into index.html's #app (scripts/build-console.js).
import { render } from 'preact';
import { App } from './app.tsx';
import './style.css';

const root = document.getElementById('app')!;
root.replaceChildren(); // the "Loading" line index.html shows until this script runs
render(<App />, root);
