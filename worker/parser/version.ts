/** Version of the extraction; bump whenever any output can change. */
export const PARSER_VERSION = '2.1.0';
