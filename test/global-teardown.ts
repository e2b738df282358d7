export default async function globalTeardown() {
  await globalThis.__quireTestDb?.stop();
}
