const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The mail an assignee gets when a run pauses for their review. */
export function reviewRequestMail(r: { title: string; workflowName: string; runId: string; url: string; expiresAt: Date }) {
  const oneLineTitle = r.title.replace(/[\r\n]+/g, ' ');
  const expires = r.expiresAt.toISOString();
  return {
    subject: `Review requested: ${oneLineTitle}`,
    text: [
      `A run of "${r.workflowName}" (${r.runId}) is waiting for your decision:`,
      '',
      `  ${oneLineTitle}`,
      '',
      `Open the review to approve or reject it: ${r.url}`,
      '',
      `This link is yours alone and expires at ${expires}.`,
    ].join('\n'),
    html: `<p>A run of <b>${escapeHtml(r.workflowName)}</b> (${escapeHtml(r.runId)}) is waiting for your decision:</p>
<p style="font-size:1.2em">${escapeHtml(oneLineTitle)}</p>
<p><a href="${escapeHtml(r.url)}">Open the review</a> to approve or reject it.</p>
<p style="color:#666">This link is yours alone and expires at ${escapeHtml(expires)}.</p>`,
  };
}
