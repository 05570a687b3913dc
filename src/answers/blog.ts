import { record, type Infer } from '../http/json-schema.ts';
import { integer, string } from './fields.ts';

const publishedAt = { type: 'string', format: 'date-time' } as const;
const summaryFields = { id: integer, title: string, slug: string, excerpt: string, published_at: publishedAt } as const;

/** A blog post summary (interface specification 2.17). */
export const BlogPostSummary = record(summaryFields, 'A blog post summary (2.17).');
export type BlogPostSummary = Infer<typeof BlogPostSummary>;

/** A whole post: its summary and its body as HTML. */
export const BlogPost = record({ ...summaryFields, html: string }, 'A blog post with its body as HTML.');
export type BlogPost = Infer<typeof BlogPost>;
