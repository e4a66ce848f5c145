// Type declarations for stopword's lists (the package ships none that resolve under NodeNext).
declare module 'stopword' {
  const lists: Record<string, string[]>;
  export = lists;
}
