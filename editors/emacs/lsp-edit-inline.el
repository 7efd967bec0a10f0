;;; lsp-edit-inline.el --- lsp-edit's pending changes shown inline, in eglot buffers  -*- lexical-binding: t -*-

;; Each pending change of lsp-edit shows its new lines where they would land: under
;; the lines it replaces, as an overlay's `after-string' in the face
;; `lsp-edit-inline-added' (diff-added), and the lines it replaces in
;; `lsp-edit-inline-removed' (diff-removed).  docs/emacs.md in the lsp-edit repository
;; shows how to turn it on.  Tried with eglot 1.9 (Emacs 28).
;;
;; The new lines come from the server (`lspEdit.list': each change's hunks, see
;; docs/protocol.md).  The buffer asks for them when the server publishes its
;; diagnostics, which it does whenever a pending change comes, goes or moves.  Between
;; two answers the overlays follow the typing by themselves; an answer only changes the
;; overlays that differ from it.

;;; Code:

(require 'eglot)
(require 'diff-mode)                    ; the faces diff-added and diff-removed

(defgroup lsp-edit-inline nil
  "lsp-edit's pending changes shown inline."
  :group 'eglot)

(defface lsp-edit-inline-added '((t :inherit diff-added :extend t))
  "The new lines of a pending change.")

(defface lsp-edit-inline-removed '((t :inherit diff-removed :extend t))
  "The lines a pending change replaces.")

(defcustom lsp-edit-inline-show 'all
  "Which pending changes show their new lines: `all', or `cursor' for only the
change on the cursor's line."
  :type '(choice (const all) (const cursor)))

(defun lsp-edit-inline--path (uri)
  "The file of URI (eglot 1.16 renamed the function)."
  (if (fboundp 'eglot-uri-to-path) (eglot-uri-to-path uri) (eglot--uri-to-path uri)))

(defun lsp-edit-inline--uri (path)
  "The URI of PATH (eglot 1.16 renamed the function)."
  (if (fboundp 'eglot-path-to-uri) (eglot-path-to-uri path) (eglot--path-to-uri path)))

(defvar lsp-edit-inline-delay 0.02
  "Seconds to wait after the server published diagnostics before asking for the
changes, so that a burst of publications costs one request.")

(defvar-local lsp-edit-inline--overlays nil
  "Hash table: \"change id#hunk index\" -> its overlay.")
(defvar-local lsp-edit-inline--timer nil)
(defvar-local lsp-edit-inline--asking nil
  "Nil, `asked' while a request is under way, `again' when asked again meanwhile.")
(defvar-local lsp-edit-inline--current nil
  "The change shown when `lsp-edit-inline-show' is `cursor'.")

;;;###autoload
(define-minor-mode lsp-edit-inline-mode
  "Show the new lines of lsp-edit's pending changes under the lines they replace."
  :lighter nil
  (lsp-edit-inline--clear)
  (remove-hook 'post-command-hook #'lsp-edit-inline--cursor-moved t)
  (when lsp-edit-inline-mode
    (add-hook 'post-command-hook #'lsp-edit-inline--cursor-moved nil t)
    ;; Changes pending already (their diagnostics are shown): ask for their lines.
    (when (seq-some (lambda (diagnostic)
                      (string-match-p "\\[pending-change\\]" (flymake-diagnostic-text diagnostic)))
                    (flymake-diagnostics))
      (lsp-edit-inline--later))))

(defun lsp-edit-inline-follow-eglot ()
  "For `eglot-managed-mode-hook': the view on in the buffers eglot manages."
  (lsp-edit-inline-mode (if (eglot-managed-p) 1 -1)))

(defun lsp-edit-inline-set-show (which)
  "Shows the new lines of WHICH changes: `all', or `cursor' for the one on the
cursor's line (`lsp-edit-inline-show'), in every buffer."
  (interactive (list (intern (completing-read "Show the new lines of: " '("all" "cursor") nil t))))
  (setq lsp-edit-inline-show which)
  (dolist (buffer (buffer-list))
    (with-current-buffer buffer
      (when lsp-edit-inline-mode
        (lsp-edit-inline--cursor-moved t)))))

(defun lsp-edit-inline--clear ()
  (when lsp-edit-inline--overlays
    (maphash (lambda (_key overlay) (delete-overlay overlay)) lsp-edit-inline--overlays))
  (setq lsp-edit-inline--overlays (make-hash-table :test #'equal)
        lsp-edit-inline--current nil))

;;;; What to draw

(defun lsp-edit-inline--lines (text)
  "TEXT as lines, without the line ending of the last one and without CRs."
  (let ((lines (split-string (or text "") "\n")))
    (when (equal (car (last lines)) "")
      (setq lines (butlast lines)))
    (mapcar (lambda (line) (string-remove-suffix "\r" line)) lines)))

(defun lsp-edit-inline--hunks (changes)
  "The pending hunks of CHANGES (`lspEdit.list''s), by their first line.
Each is a list (KEY CHANGE-ID FIRST LAST LINES): FIRST and LAST are the 0-based
lines it replaces (LAST excluded; equal for an insertion before FIRST)."
  (let (found)
    (seq-doseq (change changes)
      (when (equal (plist-get change :status) "pending")
        (let ((index 0))
          (seq-doseq (hunk (plist-get change :hunks))
            (let* ((range (plist-get hunk :range))
                   (end (plist-get range :end))
                   (first (plist-get (plist-get range :start) :line))
                   (last (+ (plist-get end :line)
                            ;; A range that reaches a last line without a newline
                            ;; ends on that line.
                            (if (> (plist-get end :character) 0) 1 0))))
              (setq index (1+ index))
              (push (list (format "%s#%d" (plist-get change :id) index)
                          (plist-get change :id) first last
                          (lsp-edit-inline--lines (plist-get hunk :newText)))
                    found))))))
    (sort found (lambda (a b) (< (nth 2 a) (nth 2 b))))))

(defun lsp-edit-inline--after-string (lines at-end)
  "LINES as the overlay's after-string; AT-END: it starts at the end of a last line
without a newline."
  (propertize (concat (if at-end "\n" "")
                      (mapconcat (lambda (line) (concat line "\n")) lines ""))
              'face 'lsp-edit-inline-added))

(defun lsp-edit-inline--shown-p (overlay)
  (or (eq lsp-edit-inline-show 'all)
      (equal (overlay-get overlay 'lsp-edit-inline-change) lsp-edit-inline--current)))

(defun lsp-edit-inline--paint (overlay)
  "Shows or hides OVERLAY's new and old lines, by `lsp-edit-inline-show'."
  (let ((shown (and (lsp-edit-inline--shown-p overlay)
                    (not (overlay-get overlay 'lsp-edit-inline-edited)))))
    (overlay-put overlay 'after-string
                 (and shown (overlay-get overlay 'lsp-edit-inline-new)))
    (overlay-put overlay 'face
                 (and shown (< (overlay-start overlay) (overlay-end overlay))
                      'lsp-edit-inline-removed))))

(defun lsp-edit-inline--edited (overlay after &rest _)
  "The text of OVERLAY's old lines changed: its new lines hide until the server's
next answer (it places the change again, or marks it stale)."
  (when (and after (not (overlay-get overlay 'lsp-edit-inline-edited)))
    (overlay-put overlay 'lsp-edit-inline-edited t)
    (lsp-edit-inline--paint overlay)))

(defun lsp-edit-inline--place (overlay hunk start end)
  "Makes OVERLAY (nil: a new one) show HUNK over START..END; returns it."
  (let ((shape (list (nth 1 hunk) (nth 4 hunk) (= end (point-max)))))
    (if (and overlay (= (overlay-start overlay) start) (= (overlay-end overlay) end)
             (equal (overlay-get overlay 'lsp-edit-inline-shape) shape)
             (not (overlay-get overlay 'lsp-edit-inline-edited)))
        overlay
      (if overlay
          (move-overlay overlay start end)
        (setq overlay (make-overlay start end nil nil nil))
        (overlay-put overlay 'lsp-edit-inline t))
      ;; Text typed in the old lines, or where an insertion goes, hides the new lines
      ;; until the next answer.
      (overlay-put overlay 'modification-hooks (and (< start end) '(lsp-edit-inline--edited)))
      (overlay-put overlay 'insert-in-front-hooks '(lsp-edit-inline--edited))
      (overlay-put overlay 'lsp-edit-inline-edited nil)
      (overlay-put overlay 'lsp-edit-inline-shape shape)
      (overlay-put overlay 'lsp-edit-inline-change (nth 1 hunk))
      (overlay-put overlay 'lsp-edit-inline-new
                   (and (nth 4 hunk)
                        (lsp-edit-inline--after-string
                         (nth 4 hunk) (and (= end (point-max)) (/= (char-before end) ?\n)))))
      (lsp-edit-inline--paint overlay)
      overlay)))

(defun lsp-edit-inline--draw (hunks)
  "Brings the overlays to HUNKS: those that differ are moved or changed in place,
new ones made, and those of hunks gone deleted."
  (let ((old lsp-edit-inline--overlays)
        (new (make-hash-table :test #'equal))
        (line 0))
    (save-excursion
      (save-restriction
        (widen)
        (goto-char (point-min))
        (dolist (hunk hunks)
          ;; The hunks are in order: one pass over the buffer.
          (forward-line (- (nth 2 hunk) line))
          (setq line (nth 2 hunk))
          (let ((start (point))
                (end (save-excursion (forward-line (- (nth 3 hunk) (nth 2 hunk))) (point))))
            (puthash (car hunk)
                     (lsp-edit-inline--place (gethash (car hunk) old) hunk start end)
                     new)
            (remhash (car hunk) old)))))
    (maphash (lambda (_key overlay) (delete-overlay overlay)) old)
    (setq lsp-edit-inline--overlays new)
    (lsp-edit-inline--cursor-moved t)))

(defun lsp-edit-inline--change-here ()
  "The change whose overlay is on the cursor's line."
  (seq-some (lambda (overlay) (overlay-get overlay 'lsp-edit-inline-change))
            (overlays-in (line-beginning-position) (min (point-max) (1+ (line-end-position))))))

(defun lsp-edit-inline--cursor-moved (&optional always)
  "Shows the change on the cursor's line, when only that one shows.
Nothing is done when it is shown already, unless ALWAYS: then all is repainted."
  (when (and lsp-edit-inline--overlays
             (or always (eq lsp-edit-inline-show 'cursor)))
    (let ((here (and (eq lsp-edit-inline-show 'cursor) (lsp-edit-inline--change-here))))
      (when (or always (not (equal here lsp-edit-inline--current)))
        (setq lsp-edit-inline--current here)
        (maphash (lambda (_key overlay) (lsp-edit-inline--paint overlay))
                 lsp-edit-inline--overlays)))))

;;;; Asking the server

(defun lsp-edit-inline--ask ()
  "Asks the server for this buffer's changes (one request at a time), draws them.
An answer the buffer has changed since is not drawn: the view asks again."
  (let ((server (eglot-current-server))
        (buffer (current-buffer)))
    (cond
     ((not (and server lsp-edit-inline-mode)))
     (lsp-edit-inline--asking (setq lsp-edit-inline--asking 'again))
     (t
      ;; The server must have the typing before it answers for this text.
      (eglot--signal-textDocument/didChange)
      (setq lsp-edit-inline--asking 'asked)
      (let ((tick (buffer-chars-modified-tick)))
        (jsonrpc-async-request
         server :workspace/executeCommand
         (list :command "lspEdit.list"
               :arguments (vector (list :uri (lsp-edit-inline--uri buffer-file-name))))
         :success-fn
         (lambda (result)
           (when (buffer-live-p buffer)
             (with-current-buffer buffer
               (let ((again (eq lsp-edit-inline--asking 'again)))
                 (setq lsp-edit-inline--asking nil)
                 (cond
                  ((/= tick (buffer-chars-modified-tick)) (lsp-edit-inline--later 0.15))
                  (t (lsp-edit-inline--draw
                      (lsp-edit-inline--hunks (plist-get result :changes)))
                     (when again (lsp-edit-inline--later))))))))
         :error-fn
         (lambda (&rest _)
           (when (buffer-live-p buffer)
             (with-current-buffer buffer (setq lsp-edit-inline--asking nil))))))))))

(defun lsp-edit-inline--later (&optional delay)
  "Asks for this buffer's changes after DELAY seconds (`lsp-edit-inline-delay')."
  (unless lsp-edit-inline--timer
    (let ((buffer (current-buffer)))
      (setq lsp-edit-inline--timer
            (run-with-timer (or delay lsp-edit-inline-delay) nil
                            (lambda ()
                              (when (buffer-live-p buffer)
                                (with-current-buffer buffer
                                  (setq lsp-edit-inline--timer nil)
                                  (lsp-edit-inline--ask)))))))))

(defun lsp-edit-inline--published (_server method &rest params)
  "After eglot handles a buffer's diagnostics: ask for its changes.
When none is pending, the view is cleared at once, without asking."
  (when (eq method 'textDocument/publishDiagnostics)
    (let ((buffer (find-buffer-visiting (lsp-edit-inline--path (plist-get params :uri)))))
      (when (and buffer (buffer-local-value 'lsp-edit-inline-mode buffer))
        (with-current-buffer buffer
          (if (seq-some (lambda (diagnostic)
                          (equal (plist-get diagnostic :code) "pending-change"))
                        (plist-get params :diagnostics))
              (lsp-edit-inline--later)
            (lsp-edit-inline--draw nil)))))))

(defconst lsp-edit-inline--deciding
  '("lspEdit.accept" "lspEdit.reject" "lspEdit.acceptAll" "lspEdit.rejectAll"))

(defun lsp-edit-inline--decided (request connection method &optional params &rest more)
  "Around eglot's requests: changes accepted or rejected lose their overlays.
They go at once, before the server publishes the diagnostics that say so: it may
have answered for them meanwhile (a code action's edit reaches it first)."
  (let ((result (apply request connection method params more)))
    (when (and (eq method :workspace/executeCommand)
               (member (plist-get params :command) lsp-edit-inline--deciding)
               (listp result))
      (let ((ids (delq nil (mapcar (lambda (change)
                                     (and (member (plist-get change :status) '("applied" "rejected"))
                                          (plist-get change :id)))
                                   (or (append (plist-get result :changes) nil) (list result))))))
        (when ids
          (dolist (buffer (buffer-list))
            (when (buffer-local-value 'lsp-edit-inline-mode buffer)
              (with-current-buffer buffer
                (maphash (lambda (key overlay)
                           (when (member (overlay-get overlay 'lsp-edit-inline-change) ids)
                             (delete-overlay overlay)
                             (remhash key lsp-edit-inline--overlays)))
                         lsp-edit-inline--overlays)))))))
    result))

(advice-add 'eglot-handle-notification :after #'lsp-edit-inline--published)
(advice-add 'jsonrpc-request :around #'lsp-edit-inline--decided)

(defun lsp-edit-inline-unload-function ()
  (advice-remove 'eglot-handle-notification #'lsp-edit-inline--published)
  (advice-remove 'jsonrpc-request #'lsp-edit-inline--decided)
  nil)

(provide 'lsp-edit-inline)
;;; lsp-edit-inline.el ends here
