export enum CatalogueError {
  /** The catalogue file failed validation; the last good catalogue stays loaded. */
  CatalogueInvalid = 'catalogue_invalid',
}
