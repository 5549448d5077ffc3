// swagger-ui-dist ships no type declarations. Only its path helper is imported (docs.ts): the package's index
// also requires the 4 MB browser bundle into the server, which would keep its source and code in every process.
declare module 'swagger-ui-dist/absolute-path.js' {
  function getAbsoluteFSPath(): string;
  export = getAbsoluteFSPath;
}
