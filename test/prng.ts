/** The seed for a randomized test: from the environment to replay a failure, else fresh. */
export function seedFromEnv(name: string): number {
  const fromEnv = process.env[name]
  return fromEnv ? Number(fromEnv) : (Math.random() * 2 ** 32) >>> 0
}
