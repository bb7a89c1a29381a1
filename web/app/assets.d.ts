// Example programs and their files, bundled as text by esbuild (build.mjs: the text loader).
declare module '*.asm' {
  const text: string;
  export default text;
}
declare module '*.keys' {
  const text: string;
  export default text;
}
declare module '*.in' {
  const text: string;
  export default text;
}
declare module '*.txt' {
  const text: string;
  export default text;
}
