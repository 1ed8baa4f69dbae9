import { readFile } from 'node:fs/promises'

/**
 * Reads a `wafka broker --sasl-users` file: one `user:password` per line
 * (the password is everything after the first ':', so it may hold ':'),
 * blank lines and lines starting with '#' ignored. Errors name the file
 * and the line number, never a line's content (it holds a password).
 */
export async function readUsersFile(path: string): Promise<Record<string, string>> {
  const text = await readFile(path, 'utf8')
  const users: Record<string, string> = {}
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim() || line.trimStart().startsWith('#')) return
    const colon = line.indexOf(':')
    if (colon <= 0 || colon === line.length - 1)
      throw new Error(`${path} line ${i + 1}: expected user:password (a user name, a colon, a non-empty password)`)
    const user = line.slice(0, colon).trim()
    if (Object.hasOwn(users, user)) throw new Error(`${path} line ${i + 1}: user ${JSON.stringify(user)} is listed twice`)
    users[user] = line.slice(colon + 1)
  })
  if (!Object.keys(users).length) throw new Error(`${path}: no users (expected user:password lines)`)
  return users
}
