import express, { Router } from 'express';
import type { Request, Response } from 'express';
import { AppError, decideReview, toReviewView } from '@svc/domain';
import { safeEqual } from '@svc/signing';
import type { ReviewLinkClaims } from '@svc/signing';
import type { GatewayDeps } from '../deps';
import { messagePage, reviewFormPage } from '../reviewPage/render';

/** The page carries its token in the URL: never cache it, frame it, leak it or run script on it. */
function secureHeaders(res: Response): void {
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  res.setHeader('X-Frame-Options', 'DENY');
  // same-origin: the tokened URL never leaks to other sites, and our own form posts keep a real Origin.
  res.setHeader('Referrer-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

function send(res: Response, status: number, html: string): void {
  secureHeaders(res);
  res.status(status).type('html').send(html);
}

const INVALID_LINK = () =>
  messagePage('Link not valid', 'This review link is not valid or has expired. Ask for a new one; nothing was changed.', 'error');

/**
 * The review page for assignees: reached through a signed, expiring link that
 * names the review and the assignee. Works without JavaScript. Outside /api/v1, so the
 * browser refusal of the API does not apply; forms are protected by a form token bound to
 * the link plus Origin / Sec-Fetch-Site checks.
 */
export function reviewPageRoutes(deps: GatewayDeps): Router {
  const r = Router();

  const findReview = (id: string) => deps.prisma.review.findUnique({ where: { id }, include: { run: { include: { workflow: true } } } });
  type FoundReview = NonNullable<Awaited<ReturnType<typeof findReview>>>;

  /** The review a valid link points to; null for a forged, altered, expired or foreign link. */
  async function load(req: Request, token: unknown): Promise<{ claims: ReviewLinkClaims; review: FoundReview } | null> {
    if (typeof token !== 'string') return null;
    const claims = deps.reviewLinks.verify(token, String(req.params.review_id));
    if (!claims) return null;
    const review = await findReview(claims.reviewId);
    return review ? { claims, review } : null;
  }

  r.get('/reviews/:review_id', async (req, res) => {
    const token = req.query.token;
    const found = await load(req, token);
    if (!found) return send(res, 403, INVALID_LINK());
    const { review, claims } = found;
    if (review.status !== 'pending') {
      return send(
        res,
        200,
        messagePage(
          'Already decided',
          `This review is ${review.status}${review.decidedBy ? ` (by ${review.decidedBy})` : ''}. Nothing more to do.`,
        ),
      );
    }
    send(
      res,
      200,
      reviewFormPage({
        review: { ...toReviewView(review), run_id: review.runId },
        workflowName: review.run.workflow.name,
        email: claims.email,
        token: token as string,
        formToken: deps.reviewLinks.formToken(token as string),
      }),
    );
  });

  r.post('/reviews/:review_id', express.urlencoded({ extended: false, limit: '16kb' }), async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const found = await load(req, body.token);
    if (!found) return send(res, 403, INVALID_LINK());
    const origin = req.headers.origin;
    const site = req.headers['sec-fetch-site'];
    const formOk = typeof body.form_token === 'string' && safeEqual(body.form_token, deps.reviewLinks.formToken(body.token as string));
    if (
      !formOk ||
      (origin !== undefined && origin !== new URL(deps.config.BASE_URL).origin) ||
      (site !== undefined && site !== 'same-origin')
    ) {
      return send(
        res,
        403,
        messagePage('Not accepted', 'This form must be sent from the review page itself; nothing was changed.', 'error'),
      );
    }
    if (body.decision !== 'approve' && body.decision !== 'reject') {
      return send(res, 400, messagePage('Choose a decision', 'Use the Approve or Reject button.', 'error'));
    }
    const comment = typeof body.comment === 'string' && body.comment.trim() ? body.comment.trim().slice(0, 4000) : null;
    try {
      const decided = await decideReview(
        { prisma: deps.prisma, control: deps.control },
        {
          reviewId: found.review.id,
          decision: body.decision === 'approve' ? 'approved' : 'rejected',
          comment,
          decidedBy: found.claims.email,
          decidedVia: { type: 'review_link', id: found.claims.email },
        },
      );
      const word = decided.status === 'approved' ? 'Approved' : 'Rejected';
      send(res, 200, messagePage(word, `${word}. Thank you — the run ${decided.status === 'approved' ? 'continues' : 'has been told'}.`));
    } catch (err) {
      if (err instanceof AppError && (err.code === 'review_already_decided' || err.code === 'no_pending_review')) {
        return send(
          res,
          409,
          messagePage('Already decided', 'Someone decided this review first (or the run ended); your choice was not recorded.', 'error'),
        );
      }
      throw err;
    }
  });

  return r;
}
