// swagger-ui-dist ships no type declarations; this is the one function used (docs.ts).
declare module 'swagger-ui-dist' {
  export function getAbsoluteFSPath(): string;
}
