-- AlterTable
ALTER TABLE "follows" ADD COLUMN     "confirmation_due_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "follows_confirmation_due_at_idx" ON "follows"("confirmation_due_at");
