// Prompt templates with {placeholders}, as in the seed: every placeholder must be known, `{{` and `}}` are literal braces.
import { MnemoError } from '../core/errors.js';

const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function templateError(message: string, position: number): MnemoError {
  return new MnemoError('INVALID_INPUT', `template: ${message}`, { details: { field: 'template', position } });
}

/**
 * The placeholders of a template, in order of first appearance. Throws INVALID_INPUT on a lone `{` or `}` or a
 * placeholder that is not a name.
 *
 * @example
 * ```ts
 * templatePlaceholders('You are {name}. {{not one}} {lore_context}'); // ['name', 'lore_context']
 * ```
 */
export function templatePlaceholders(template: string): string[] {
  const names: string[] = [];
  for (const part of parseTemplate(template)) if (part.kind === 'placeholder' && !names.includes(part.name)) names.push(part.name);
  return names;
}

type TemplatePart = { kind: 'text'; text: string } | { kind: 'placeholder'; name: string; position: number };

function parseTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let text = '';
  for (let index = 0; index < template.length; index++) {
    const character = template[index];
    const next = template[index + 1];
    if ((character === '{' && next === '{') || (character === '}' && next === '}')) {
      text += character;
      index++;
    } else if (character === '{') {
      const end = template.indexOf('}', index);
      const name = end === -1 ? '' : template.slice(index + 1, end);
      if (end === -1) throw templateError(`a "{" at position ${index} is never closed. Close the placeholder, or write "{{" for a literal brace.`, index);
      if (!PLACEHOLDER_NAME.test(name)) {
        throw templateError(`expected a placeholder name (letters, digits, _) between braces at position ${index}, got ${JSON.stringify(name)}. Write "{{" and "}}" for literal braces.`, index);
      }
      parts.push({ kind: 'text', text }, { kind: 'placeholder', name, position: index });
      text = '';
      index = end;
    } else if (character === '}') {
      throw templateError(`a "}" at position ${index} closes nothing. Write "}}" for a literal brace.`, index);
    } else {
      text += character;
    }
  }
  parts.push({ kind: 'text', text });
  return parts;
}

/**
 * Fills a template's `{placeholders}` from `variables`. An unknown placeholder is an INVALID_INPUT error naming
 * it, its position and the names that are known; nothing is guessed or left in place.
 *
 * @example
 * ```ts
 * renderTemplate('## What you know about the world\n{lore_context}', { lore_context: '- The Shadow War ...' });
 * renderTemplate('{mood}', { lore_context: '' }); // throws: unknown placeholder {mood} ...
 * ```
 */
export function renderTemplate(template: string, variables: Readonly<Record<string, string>>): string {
  let rendered = '';
  for (const part of parseTemplate(template)) {
    if (part.kind === 'text') {
      rendered += part.text;
      continue;
    }
    const value = Object.hasOwn(variables, part.name) ? variables[part.name] : undefined;
    if (value === undefined) {
      const known = Object.keys(variables).sort();
      throw new MnemoError('INVALID_INPUT', `template: unknown placeholder {${part.name}} at position ${part.position}. Known placeholders: ${known.map((name) => `{${name}}`).join(', ')}. Pass it in \`variables\`, or write "{{${part.name}}}" for literal text.`, {
        details: { field: 'template', placeholder: part.name, position: part.position, known },
      });
    }
    rendered += value;
  }
  return rendered;
}
