// Saves an answer of the gateway as a file: fetched with the credential in a header (a link cannot
// carry one), then handed to the browser's download through an object URL it revokes a minute on.
export async function saveResponse(response: Response, filename: string): Promise<void> {
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
